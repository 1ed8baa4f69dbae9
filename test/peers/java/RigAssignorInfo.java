import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.ProcessId;
import org.apache.kafka.streams.processor.internals.assignment.AssignmentInfo;
import org.apache.kafka.streams.processor.internals.assignment.SubscriptionInfo;
import org.apache.kafka.streams.state.HostInfo;

/**
 * Java Kafka Streams' classic-protocol user data (SubscriptionInfo,
 * AssignmentInfo), one request per stdin line, one JSON answer per line:
 *
 *   encode-subscription                -> {"bytes":B64} of a fixed SubscriptionInfo (v11, one task offset sum)
 *   encode-subscription-many           -> the same with several task offset sums (their order is a HashMap's)
 *   decode-subscription B64            -> its fields, and "reencoded": Java's encoding of what it read
 *   encode-assignment                  -> {"bytes":B64} of a fixed AssignmentInfo (v11)
 *   decode-assignment B64              -> its fields, and "reencoded"
 */
public final class RigAssignorInfo {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;
    private static final ProcessId PROCESS = new ProcessId(UUID.fromString("0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"));

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null;) {
            if (line.isBlank()) continue;
            String[] req = line.trim().split(" ");
            ObjectNode answer = F.objectNode();
            switch (req[0]) {
                case "encode-subscription":
                    answer.put("bytes", b64(new SubscriptionInfo(11, 11, PROCESS, "host-a:8080",
                        Map.of(new TaskId(1, 2), 42L), (byte) 3, 0, Map.of("zone", "eu-1")).encode()));
                    break;
                case "encode-subscription-many":
                    answer.put("bytes", b64(new SubscriptionInfo(11, 11, PROCESS, null,
                        Map.of(new TaskId(0, 0), -2L, new TaskId(0, 3), -2L, new TaskId(1, 1), 7L), (byte) -1, 4, Map.of()).encode()));
                    break;
                case "decode-subscription": {
                    SubscriptionInfo info = SubscriptionInfo.decode(ByteBuffer.wrap(Base64.getDecoder().decode(req[1])));
                    answer.put("version", info.version());
                    answer.put("latestSupportedVersion", info.latestSupportedVersion());
                    answer.put("processId", info.processId().id().toString());
                    answer.put("userEndpoint", info.userEndPoint());
                    ObjectNode sums = answer.putObject("taskOffsetSums");
                    new TreeMap<>(info.taskOffsetSums()).forEach((t, s) -> sums.put(t.toString(), s.toString()));
                    answer.put("errorCode", info.errorCode());
                    ObjectNode tags = answer.putObject("clientTags");
                    new TreeMap<>(info.clientTags()).forEach(tags::put);
                    answer.put("reencoded", b64(info.encode()));
                    break;
                }
                case "encode-assignment": {
                    AssignmentInfo info = new AssignmentInfo(11, 11,
                        List.of(new TaskId(0, 1), new TaskId(1, 1)),
                        Map.of(new TaskId(0, 2), Set.of(new TopicPartition("words", 2))),
                        Map.of(new HostInfo("host-a", 8080), Set.of(new TopicPartition("words", 1))),
                        Map.of(new HostInfo("host-b", 9090), Set.of(new TopicPartition("words", 2))),
                        0);
                    info.setNextRebalanceTime(1234L);
                    answer.put("bytes", b64(info.encode()));
                    break;
                }
                case "decode-assignment": {
                    AssignmentInfo info = AssignmentInfo.decode(ByteBuffer.wrap(Base64.getDecoder().decode(req[1])));
                    answer.put("version", info.version());
                    answer.put("commonlySupportedVersion", info.commonlySupportedVersion());
                    ArrayNode active = answer.putArray("activeTasks");
                    info.activeTasks().forEach(t -> active.add(t.toString()));
                    ObjectNode standby = answer.putObject("standbyTasks");
                    new TreeMap<>(info.standbyTasks()).forEach((t, ps) -> standby.set(t.toString(), partitions(ps)));
                    answer.set("partitionsByHost", hosts(info.partitionsByHost()));
                    answer.set("standbyPartitionsByHost", hosts(info.standbyPartitionByHost()));
                    answer.put("errorCode", info.errCode());
                    answer.put("nextRebalanceMs", Long.toString(info.nextRebalanceMs()));
                    answer.put("reencoded", b64(info.encode()));
                    break;
                }
                default:
                    answer.put("error", "unknown request " + req[0]);
            }
            out.println(new ObjectMapper().writeValueAsString(answer));
        }
    }

    private static String b64(ByteBuffer b) {
        byte[] bytes = new byte[b.remaining()];
        b.duplicate().get(bytes);
        return Base64.getEncoder().encodeToString(bytes);
    }

    private static ArrayNode partitions(Collection<TopicPartition> ps) {
        List<String> names = new ArrayList<>();
        for (TopicPartition p : ps) names.add(p.toString());
        names.sort(null);
        ArrayNode a = F.arrayNode();
        names.forEach(a::add);
        return a;
    }

    private static ObjectNode hosts(Map<HostInfo, Set<TopicPartition>> m) {
        ObjectNode o = F.objectNode();
        TreeMap<String, Set<TopicPartition>> sorted = new TreeMap<>();
        m.forEach((h, ps) -> sorted.put(h.host() + ":" + h.port(), ps));
        sorted.forEach((h, ps) -> o.set(h, partitions(ps)));
        return o;
    }
}
