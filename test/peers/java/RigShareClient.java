import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Java's KafkaShareConsumer (KIP-932) as a share-group member in the rig's
 * tests, in its own JVM, speaking JSON lines. Kafka 4 only: the rig compiles
 * it for Kafka 4.x (test/peers/kafka.ts rigClassDir), as 3.9 has no share
 * consumer.
 *
 *   share BOOTSTRAP GROUP TOPICS [--poll-delay-ms N] [--prop k=v]...
 *       a subscribed member (implicit acknowledgement unless --prop says otherwise) until SIGTERM
 *       (then it closes); stdout: {"event":"started"}, {"event":"record","topic","partition","offset",
 *       "value","deliveryCount"} per record, {"event":"closed"}. --poll-delay-ms: a pause after each
 *       non-empty poll, standing for the work a record takes.
 */
public final class RigShareClient {
    private static final PrintStream OUT = new PrintStream(System.out, true, StandardCharsets.UTF_8);

    public static void main(String[] args) throws Exception {
        List<String> rest = new ArrayList<>(Arrays.asList(args));
        if (rest.size() < 4 || !rest.get(0).equals("share")) {
            System.err.println("usage: RigShareClient share BOOTSTRAP GROUP TOPICS [--poll-delay-ms N] [--prop k=v]...");
            System.exit(64);
        }
        long delay = 0;
        Properties p = new Properties();
        for (int i = 4; i < rest.size(); i += 2) {
            String v = rest.get(i + 1);
            if (rest.get(i).equals("--poll-delay-ms")) delay = Long.parseLong(v);
            else if (rest.get(i).equals("--prop")) p.setProperty(v.substring(0, v.indexOf('=')), v.substring(v.indexOf('=') + 1));
        }
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, rest.get(1));
        p.put(ConsumerConfig.GROUP_ID_CONFIG, rest.get(2));
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        KafkaShareConsumer<byte[], byte[]> consumer = new KafkaShareConsumer<>(p);
        CountDownLatch closed = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            consumer.wakeup();
            try {
                closed.await();
            } catch (InterruptedException ignored) {
                // exiting anyway
            }
        }));
        try {
            consumer.subscribe(Arrays.asList(rest.get(3).split(",")));
            OUT.println("{\"event\":\"started\"}");
            for (;;) {
                ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(100));
                for (ConsumerRecord<byte[], byte[]> r : records) {
                    String value = r.value() == null ? "null" : "\"" + Base64.getEncoder().encodeToString(r.value()) + "\"";
                    OUT.println("{\"event\":\"record\",\"topic\":\"" + r.topic() + "\",\"partition\":" + r.partition() + ",\"offset\":" + r.offset()
                        + ",\"value\":" + value + ",\"deliveryCount\":" + r.deliveryCount().orElse((short) -1) + "}");
                }
                if (!records.isEmpty() && delay > 0) Thread.sleep(delay);
            }
        } catch (WakeupException e) {
            // SIGTERM: close, acknowledging the last poll's records
        } finally {
            consumer.close();
            OUT.println("{\"event\":\"closed\"}");
            closed.countDown();
        }
    }
}
