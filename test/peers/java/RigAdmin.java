import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConsumerGroupListing;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialDeletion;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.admin.UserScramCredentialsDescription;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;

/**
 * The Java AdminClient as the rig's reference admin, speaking JSON lines:
 * one request per stdin line, one answer per stdout line, in order, on one
 * AdminClient. A failed call answers {"error": exception class, "message"}.
 *
 *   RigAdmin BOOTSTRAP [--prop k=v]...
 *     {"op":"createTopics","topics":[{"name","partitions","replicationFactor"?,"configs"?:{k:v}}]}  -> {}
 *     {"op":"listTopics"}                                   -> {"topics":[names, sorted]}
 *     {"op":"describeTopics","topics":[names]}              -> {"topics":[{"name","partitions":[{"partition","leader","replicas","isr"}]}]}
 *     {"op":"deleteTopics","topics":[names]}                -> {}
 *     {"op":"describeCluster"}                              -> {"clusterId","controller","nodes":[{"id","host","port"}]}
 *     {"op":"listConsumerGroups"}                           -> {"groups":[{"groupId","state","type"}], sorted}
 *     {"op":"describeConsumerGroups","groups":[ids]}        -> {"groups":[{"groupId","state","type","assignor","members":[{"clientId","assignment":[[topic,partition]]}]}]}
 *     {"op":"listConsumerGroupOffsets","group"}             -> {"offsets":[[topic,partition,offset]]}
 *     {"op":"deleteRecords","topic","partition","offset"}   -> {"lowWatermark"}
 *     {"op":"listOffsets","topic","partition","spec":"earliest"|"latest"} -> {"offset"}
 *     {"op":"createPartitions","topic","count","assignments"?:[[broker ids]]} -> {}
 *     {"op":"describeConfigs","type":"TOPIC"|"BROKER"|"GROUP","name"} -> {"configs":{name:value}}
 *     {"op":"upsertScram","user","mechanism":"SCRAM-SHA-256"|"SCRAM-SHA-512","password","iterations"} -> {}
 *     {"op":"deleteScram","user","mechanism"}                -> {}
 *     {"op":"describeScram"}                                -> {"users":{user:[[mechanism,iterations]]}}
 */
public final class RigAdmin {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final PrintStream OUT = new PrintStream(System.out, true, StandardCharsets.UTF_8);

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: RigAdmin BOOTSTRAP [--prop k=v]... (requests on stdin, see the class comment)");
            System.exit(64);
        }
        Properties p = new Properties();
        for (int i = 1; i + 1 < args.length; i += 2) {
            if (!args[i].equals("--prop")) throw new IllegalArgumentException("unknown argument " + args[i]);
            int eq = args[i + 1].indexOf('=');
            p.setProperty(args[i + 1].substring(0, eq), args[i + 1].substring(eq + 1));
        }
        p.putIfAbsent(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        try (Admin admin = Admin.create(p)) {
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            for (String line; (line = in.readLine()) != null; ) {
                if (line.isBlank()) continue;
                ObjectNode answer;
                try {
                    answer = answer(admin, JSON.readTree(line));
                } catch (ExecutionException e) {
                    answer = error(e.getCause());
                } catch (Exception e) {
                    answer = error(e);
                }
                OUT.println(answer.toString());
            }
        }
    }

    private static ObjectNode error(Throwable e) {
        ObjectNode o = JSON.createObjectNode();
        o.put("error", e.getClass().getSimpleName());
        o.put("message", String.valueOf(e.getMessage()));
        return o;
    }

    private static List<String> strings(JsonNode n) {
        List<String> out = new ArrayList<>();
        for (JsonNode s : n) out.add(s.asText());
        return out;
    }

    @SuppressWarnings("deprecation")
    private static ObjectNode answer(Admin admin, JsonNode req) throws Exception {
        ObjectNode o = JSON.createObjectNode();
        switch (req.get("op").asText()) {
            case "createTopics" -> {
                List<NewTopic> topics = new ArrayList<>();
                for (JsonNode t : req.get("topics")) {
                    NewTopic nt = new NewTopic(
                        t.get("name").asText(),
                        Optional.of(t.get("partitions").asInt()),
                        t.has("replicationFactor") ? Optional.of((short) t.get("replicationFactor").asInt()) : Optional.empty());
                    if (t.has("configs")) {
                        Map<String, String> configs = new HashMap<>();
                        t.get("configs").fields().forEachRemaining(e -> configs.put(e.getKey(), e.getValue().asText()));
                        nt.configs(configs);
                    }
                    topics.add(nt);
                }
                admin.createTopics(topics).all().get();
            }
            case "listTopics" -> {
                ArrayNode names = o.putArray("topics");
                admin.listTopics().names().get().stream().sorted().forEach(names::add);
            }
            case "describeTopics" -> {
                ArrayNode topics = o.putArray("topics");
                Map<String, TopicDescription> described = admin.describeTopics(strings(req.get("topics"))).allTopicNames().get();
                for (TopicDescription d : new TreeMap<>(described).values()) {
                    ObjectNode t = topics.addObject();
                    t.put("name", d.name());
                    ArrayNode parts = t.putArray("partitions");
                    for (TopicPartitionInfo pi : d.partitions()) {
                        ObjectNode po = parts.addObject();
                        po.put("partition", pi.partition());
                        po.put("leader", pi.leader() == null ? -1 : pi.leader().id());
                        ArrayNode replicas = po.putArray("replicas");
                        for (Node n : pi.replicas()) replicas.add(n.id());
                        ArrayNode isr = po.putArray("isr");
                        for (Node n : pi.isr()) isr.add(n.id());
                    }
                }
            }
            case "deleteTopics" -> admin.deleteTopics(strings(req.get("topics"))).all().get();
            case "describeCluster" -> {
                DescribeClusterResult r = admin.describeCluster();
                o.put("clusterId", r.clusterId().get());
                Node controller = r.controller().get();
                o.put("controller", controller == null ? -1 : controller.id());
                ArrayNode nodes = o.putArray("nodes");
                for (Node n : r.nodes().get()) nodes.addObject().put("id", n.id()).put("host", n.host()).put("port", n.port());
            }
            case "listConsumerGroups" -> {
                ArrayNode groups = o.putArray("groups");
                List<ConsumerGroupListing> listed = new ArrayList<>(admin.listConsumerGroups().all().get());
                listed.sort((a, b) -> a.groupId().compareTo(b.groupId()));
                for (ConsumerGroupListing g : listed)
                    groups.addObject()
                        .put("groupId", g.groupId())
                        .put("state", g.state().map(Object::toString).orElse(null))
                        .put("type", g.type().map(Object::toString).orElse(null));
            }
            case "describeConsumerGroups" -> {
                ArrayNode groups = o.putArray("groups");
                Map<String, ConsumerGroupDescription> described = admin.describeConsumerGroups(strings(req.get("groups"))).all().get();
                for (ConsumerGroupDescription d : new TreeMap<>(described).values()) {
                    ObjectNode g = groups.addObject();
                    g.put("groupId", d.groupId());
                    g.put("state", d.state().toString());
                    g.put("type", d.type().toString());
                    g.put("assignor", d.partitionAssignor());
                    ArrayNode members = g.putArray("members");
                    for (MemberDescription m : d.members()) {
                        ObjectNode mo = members.addObject();
                        mo.put("clientId", m.clientId());
                        ArrayNode assignment = mo.putArray("assignment");
                        m.assignment().topicPartitions().stream()
                            .sorted((a, b) -> a.topic().equals(b.topic()) ? a.partition() - b.partition() : a.topic().compareTo(b.topic()))
                            .forEach(tp -> assignment.addArray().add(tp.topic()).add(tp.partition()));
                    }
                }
            }
            case "listConsumerGroupOffsets" -> {
                ArrayNode offsets = o.putArray("offsets");
                Map<TopicPartition, OffsetAndMetadata> m =
                    admin.listConsumerGroupOffsets(req.get("group").asText()).partitionsToOffsetAndMetadata().get();
                m.entrySet().stream()
                    .sorted((a, b) -> a.getKey().toString().compareTo(b.getKey().toString()))
                    .forEach(e -> offsets.addArray().add(e.getKey().topic()).add(e.getKey().partition()).add(e.getValue().offset()));
            }
            case "deleteRecords" -> {
                TopicPartition tp = new TopicPartition(req.get("topic").asText(), req.get("partition").asInt());
                long low = admin.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(req.get("offset").asLong())))
                    .lowWatermarks().get(tp).get().lowWatermark();
                o.put("lowWatermark", low);
            }
            case "listOffsets" -> {
                TopicPartition tp = new TopicPartition(req.get("topic").asText(), req.get("partition").asInt());
                OffsetSpec spec = req.get("spec").asText().equals("earliest") ? OffsetSpec.earliest() : OffsetSpec.latest();
                ListOffsetsResult.ListOffsetsResultInfo info = admin.listOffsets(Map.of(tp, spec)).partitionResult(tp).get();
                o.put("offset", info.offset());
            }
            case "createPartitions" -> {
                List<List<Integer>> assignments = null;
                if (req.has("assignments")) {
                    assignments = new ArrayList<>();
                    for (JsonNode a : req.get("assignments")) {
                        List<Integer> ids = new ArrayList<>();
                        for (JsonNode id : a) ids.add(id.asInt());
                        assignments.add(ids);
                    }
                }
                NewPartitions np = assignments == null
                    ? NewPartitions.increaseTo(req.get("count").asInt())
                    : NewPartitions.increaseTo(req.get("count").asInt(), assignments);
                admin.createPartitions(Map.of(req.get("topic").asText(), np)).all().get();
            }
            case "describeConfigs" -> {
                ConfigResource r = new ConfigResource(ConfigResource.Type.valueOf(req.get("type").asText()), req.get("name").asText());
                Config c = admin.describeConfigs(List.of(r)).all().get().get(r);
                ObjectNode configs = o.putObject("configs");
                c.entries().stream().sorted((a, b) -> a.name().compareTo(b.name())).forEach(e -> configs.put(e.name(), e.value()));
            }
            case "upsertScram" -> admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(
                    req.get("user").asText(),
                    new ScramCredentialInfo(ScramMechanism.fromMechanismName(req.get("mechanism").asText()), req.get("iterations").asInt()),
                    req.get("password").asText()))).all().get();
            case "deleteScram" -> admin.alterUserScramCredentials(List.of(new UserScramCredentialDeletion(
                    req.get("user").asText(), ScramMechanism.fromMechanismName(req.get("mechanism").asText())))).all().get();
            case "describeScram" -> {
                Map<String, UserScramCredentialsDescription> d = admin.describeUserScramCredentials().all().get();
                ObjectNode users = o.putObject("users");
                new TreeMap<>(d).forEach((user, desc) -> {
                    ArrayNode list = users.putArray(user);
                    desc.credentialInfos().forEach(i -> list.addArray().add(i.mechanism().mechanismName()).add(i.iterations()));
                });
            }
            default -> throw new IllegalArgumentException("unknown op " + req.get("op"));
        }
        return o;
    }
}
