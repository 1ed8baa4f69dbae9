import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The Java client's transactional producer, driven step by step as JSON
 * lines: one step per stdin line, one answer per stdout line, in order.
 * initTransactions() runs first; a failed step answers {"error","message"}.
 * A step with "p": 1 (or 2, ...) goes to another producer of the same
 * transactional id, made (and initTransactions() run, fencing the others)
 * at its first step; the describe steps use an AdminClient.
 *
 *   RigTxnProducer BOOTSTRAP TOPIC TRANSACTIONAL_ID [--prop k=v]...
 *     {"op":"begin"} | {"op":"commit"} | {"op":"abort"}     -> {}
 *     {"op":"send","key","value","partition"?}             -> {"partition","offset"} (bytes as base64)
 *     {"op":"offsets","group","partition","offset"}         -> {} (sendOffsetsToTransaction for TOPIC's partition)
 *     {"op":"describe"}                                     -> {"state","producerId","producerEpoch"} (describeTransactions)
 *     {"op":"producers","partition"}                        -> {"producers":[[producerId, producerEpoch]]} (describeProducers)
 */
public final class RigTxnProducer {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final PrintStream OUT = new PrintStream(System.out, true, StandardCharsets.UTF_8);

    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: RigTxnProducer BOOTSTRAP TOPIC TRANSACTIONAL_ID [--prop k=v]... (steps on stdin)");
            System.exit(64);
        }
        Properties p = new Properties();
        for (int i = 3; i + 1 < args.length; i += 2) {
            if (!args[i].equals("--prop")) throw new IllegalArgumentException("unknown argument " + args[i]);
            int eq = args[i + 1].indexOf('=');
            p.setProperty(args[i + 1].substring(0, eq), args[i + 1].substring(eq + 1));
        }
        p.putIfAbsent(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, args[2]);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        String topic = args[1];
        List<KafkaProducer<byte[], byte[]>> producers = new ArrayList<>();
        Admin admin = null;
        try {
            producers.add(new KafkaProducer<>(p));
            producers.get(0).initTransactions();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            for (String line; (line = in.readLine()) != null; ) {
                if (line.isBlank()) continue;
                JsonNode n = JSON.readTree(line);
                ObjectNode o = JSON.createObjectNode();
                try {
                    int index = n.hasNonNull("p") ? n.get("p").asInt() : 0;
                    while (producers.size() <= index) {
                        KafkaProducer<byte[], byte[]> next = new KafkaProducer<>(p);
                        producers.add(next);
                        next.initTransactions();
                    }
                    KafkaProducer<byte[], byte[]> producer = producers.get(index);
                    String op = n.get("op").asText();
                    if (admin == null && (op.equals("describe") || op.equals("producers"))) {
                        Properties ap = new Properties();
                        ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, p.getProperty(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG));
                        admin = Admin.create(ap);
                    }
                    switch (op) {
                        case "begin" -> producer.beginTransaction();
                        case "commit" -> producer.commitTransaction();
                        case "abort" -> producer.abortTransaction();
                        case "send" -> {
                            Integer partition = n.hasNonNull("partition") ? n.get("partition").asInt() : null;
                            RecordMetadata md = producer.send(new ProducerRecord<>(topic, partition, bytes(n.get("key")), bytes(n.get("value")))).get();
                            o.put("partition", md.partition());
                            o.put("offset", md.offset());
                        }
                        case "offsets" -> producer.sendOffsetsToTransaction(
                                Map.of(new TopicPartition(topic, n.get("partition").asInt()), new OffsetAndMetadata(n.get("offset").asLong())),
                                new ConsumerGroupMetadata(n.get("group").asText()));
                        case "describe" -> {
                            TransactionDescription d = admin.describeTransactions(List.of(args[2])).description(args[2]).get();
                            o.put("state", d.state().toString());
                            o.put("producerId", d.producerId());
                            o.put("producerEpoch", d.producerEpoch());
                        }
                        case "producers" -> {
                            TopicPartition tp = new TopicPartition(topic, n.get("partition").asInt());
                            var list = o.putArray("producers");
                            for (ProducerState s : admin.describeProducers(List.of(tp)).partitionResult(tp).get().activeProducers())
                                list.addArray().add(s.producerId()).add(s.producerEpoch());
                        }
                        default -> throw new IllegalArgumentException("unknown op " + n.get("op"));
                    }
                } catch (ExecutionException e) {
                    o.put("error", e.getCause().getClass().getSimpleName()).put("message", String.valueOf(e.getCause().getMessage()));
                } catch (Exception e) {
                    o.put("error", e.getClass().getSimpleName()).put("message", String.valueOf(e.getMessage()));
                }
                OUT.println(o.toString());
            }
        } finally {
            for (KafkaProducer<byte[], byte[]> producer : producers) producer.close();
            if (admin != null) admin.close();
        }
    }

    private static byte[] bytes(JsonNode n) {
        return n == null || n.isNull() ? null : Base64.getDecoder().decode(n.asText());
    }
}
