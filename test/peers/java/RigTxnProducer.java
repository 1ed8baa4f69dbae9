import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The Java client's transactional producer, driven step by step as JSON
 * lines: one step per stdin line, one answer per stdout line, in order.
 * initTransactions() runs first; a failed step answers {"error","message"}.
 *
 *   RigTxnProducer BOOTSTRAP TOPIC TRANSACTIONAL_ID [--prop k=v]...
 *     {"op":"begin"} | {"op":"commit"} | {"op":"abort"}     -> {}
 *     {"op":"send","key","value","partition"?}             -> {"partition","offset"} (bytes as base64)
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
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            producer.initTransactions();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            for (String line; (line = in.readLine()) != null; ) {
                if (line.isBlank()) continue;
                JsonNode n = JSON.readTree(line);
                ObjectNode o = JSON.createObjectNode();
                try {
                    switch (n.get("op").asText()) {
                        case "begin" -> producer.beginTransaction();
                        case "commit" -> producer.commitTransaction();
                        case "abort" -> producer.abortTransaction();
                        case "send" -> {
                            Integer partition = n.hasNonNull("partition") ? n.get("partition").asInt() : null;
                            RecordMetadata md = producer.send(new ProducerRecord<>(topic, partition, bytes(n.get("key")), bytes(n.get("value")))).get();
                            o.put("partition", md.partition());
                            o.put("offset", md.offset());
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
        }
    }

    private static byte[] bytes(JsonNode n) {
        return n == null || n.isNull() ? null : Base64.getDecoder().decode(n.asText());
    }
}
