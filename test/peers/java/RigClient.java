import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The Java client (kafka-clients) as the rig's reference client, speaking
 * JSON lines (bytes as base64, null as null). See test/peers/README.md.
 *
 *   produce BOOTSTRAP TOPIC [--prop k=v]...    stdin: {"key","value","headers":[[k,v]],"partition"?,"timestamp"?}
 *                                               stdout: {"partition","offset"} per input line, in order
 *                                               (no "partition" in the input: the Java producer's partitioner decides)
 *   consume BOOTSTRAP TOPIC [--count N] [--timeout-ms T] [--prop k=v]...
 *                                               every partition from the beginning, to --count records or
 *                                               (without it) to the end offsets seen at start; stdout: records
 *   group BOOTSTRAP GROUP TOPICS [--pattern] [--commit sync|async|none] [--prop k=v]...
 *                                               a subscribed group member until SIGTERM (then it leaves);
 *                                               stdout: {"event":"assigned"|"revoked"|"lost"|"record"|"committed"|"closed"}
 *
 * --prop passes any Java client property, e.g. compression.type=zstd,
 * group.protocol=consumer, partition.assignment.strategy=...,
 * isolation.level=read_committed, group.instance.id=m1.
 */
public final class RigClient {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final PrintStream OUT = new PrintStream(System.out, true, StandardCharsets.UTF_8);

    public static void main(String[] args) throws Exception {
        if (args.length < 3) usage();
        List<String> rest = new ArrayList<>(Arrays.asList(args).subList(1, args.length));
        switch (args[0]) {
            case "produce" -> produce(rest);
            case "consume" -> consume(rest);
            case "group" -> group(rest);
            default -> usage();
        }
    }

    private static void usage() {
        System.err.println("usage: RigClient produce|consume|group BOOTSTRAP ... (see the class comment)");
        System.exit(64);
    }

    /** Removes and returns the value of --name (null when absent). */
    private static String option(List<String> args, String name) {
        int i = args.indexOf(name);
        if (i < 0) return null;
        String v = args.get(i + 1);
        args.remove(i + 1);
        args.remove(i);
        return v;
    }

    private static boolean flag(List<String> args, String name) {
        return args.remove(name);
    }

    private static Properties props(List<String> args) {
        Properties p = new Properties();
        for (String v; (v = option(args, "--prop")) != null; ) {
            int eq = v.indexOf('=');
            p.setProperty(v.substring(0, eq), v.substring(eq + 1));
        }
        return p;
    }

    private static String b64(byte[] b) {
        return b == null ? null : Base64.getEncoder().encodeToString(b);
    }

    private static byte[] bytes(JsonNode n) {
        return n == null || n.isNull() ? null : Base64.getDecoder().decode(n.asText());
    }

    private static ObjectNode recordJson(ConsumerRecord<byte[], byte[]> r) {
        ObjectNode o = JSON.createObjectNode();
        o.put("topic", r.topic());
        o.put("partition", r.partition());
        o.put("offset", r.offset());
        o.put("timestamp", r.timestamp());
        o.put("timestampType", r.timestampType().name);
        o.put("key", b64(r.key()));
        o.put("value", b64(r.value()));
        ArrayNode headers = o.putArray("headers");
        for (Header h : r.headers()) headers.addArray().add(h.key()).add(b64(h.value()));
        return o;
    }

    private static void print(ObjectNode o) {
        synchronized (OUT) {
            OUT.println(o.toString());
        }
    }

    private static void produce(List<String> args) throws Exception {
        Properties p = props(args);
        p.putIfAbsent(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, args.get(0));
        String topic = args.get(1);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            for (String line; (line = in.readLine()) != null; ) {
                if (line.isBlank()) continue;
                JsonNode n = JSON.readTree(line);
                RecordHeaders headers = new RecordHeaders();
                if (n.has("headers")) for (JsonNode h : n.get("headers")) headers.add(h.get(0).asText(), bytes(h.get(1)));
                Integer partition = n.hasNonNull("partition") ? n.get("partition").asInt() : null;
                Long timestamp = n.hasNonNull("timestamp") ? n.get("timestamp").asLong() : null;
                sent.add(producer.send(new ProducerRecord<>(topic, partition, timestamp, bytes(n.get("key")), bytes(n.get("value")), headers)));
            }
            producer.flush();
            for (Future<RecordMetadata> f : sent) {
                ObjectNode o = JSON.createObjectNode();
                try {
                    RecordMetadata m = f.get();
                    o.put("partition", m.partition());
                    o.put("offset", m.offset());
                } catch (Exception e) {
                    o.put("error", String.valueOf(e.getCause() == null ? e : e.getCause()));
                }
                print(o);
            }
        }
    }

    private static KafkaConsumer<byte[], byte[]> consumer(Properties p, String bootstrap) {
        p.putIfAbsent(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.putIfAbsent(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        return new KafkaConsumer<>(p);
    }

    private static void consume(List<String> args) {
        String count = option(args, "--count");
        String timeout = option(args, "--timeout-ms");
        long timeoutMs = timeout == null ? 30_000 : Long.parseLong(timeout);
        Properties p = props(args);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(p, args.get(0))) {
            String topic = args.get(1);
            List<TopicPartition> partitions = new ArrayList<>();
            for (PartitionInfo info : consumer.partitionsFor(topic, Duration.ofMillis(timeoutMs))) {
                partitions.add(new TopicPartition(topic, info.partition()));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = count == null ? consumer.endOffsets(partitions) : Map.of();
            long want = count == null ? -1 : Long.parseLong(count);
            long got = 0;
            long deadline = System.currentTimeMillis() + timeoutMs;
            while (System.currentTimeMillis() < deadline) {
                if (want >= 0 ? got >= want : reached(consumer, end)) return;
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    print(recordJson(r));
                    got++;
                }
            }
            System.err.println("timed out after " + got + " records");
            System.exit(2);
        }
    }

    private static boolean reached(KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> end) {
        for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
            if (consumer.position(e.getKey()) < e.getValue()) return false;
        }
        return true;
    }

    private static ArrayNode partitionsJson(Collection<TopicPartition> tps) {
        ArrayNode a = JSON.createArrayNode();
        tps.stream().sorted((x, y) -> x.topic().equals(y.topic()) ? x.partition() - y.partition() : x.topic().compareTo(y.topic()))
            .forEach(tp -> a.addObject().put("topic", tp.topic()).put("partition", tp.partition()));
        return a;
    }

    private static void event(String name, Collection<TopicPartition> tps, Collection<TopicPartition> assignment) {
        ObjectNode o = JSON.createObjectNode();
        o.put("event", name);
        o.set("partitions", partitionsJson(tps));
        if (assignment != null) o.set("assignment", partitionsJson(assignment));
        print(o);
    }

    private static void group(List<String> args) {
        boolean pattern = flag(args, "--pattern");
        String commit = option(args, "--commit");
        if (commit == null) commit = "sync";
        Properties p = props(args);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, args.get(1));
        p.putIfAbsent(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        KafkaConsumer<byte[], byte[]> consumer = consumer(p, args.get(0));
        CountDownLatch closed = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            consumer.wakeup();
            try {
                closed.await();
            } catch (InterruptedException ignored) {
                // exiting anyway
            }
        }));
        ConsumerRebalanceListener listener = new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                event("revoked", partitions, null);
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                event("assigned", partitions, consumer.assignment());
            }

            @Override
            public void onPartitionsLost(Collection<TopicPartition> partitions) {
                event("lost", partitions, null);
            }
        };
        try {
            if (pattern) consumer.subscribe(Pattern.compile(args.get(2)), listener);
            else consumer.subscribe(Arrays.asList(args.get(2).split(",")), listener);
            print(JSON.createObjectNode().put("event", "started"));
            for (;;) {
                ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(100));
                for (ConsumerRecord<byte[], byte[]> r : records) print(recordJson(r).put("event", "record"));
                if (records.isEmpty() || commit.equals("none")) continue;
                if (commit.equals("async")) consumer.commitAsync();
                else consumer.commitSync();
                print(JSON.createObjectNode().put("event", "committed").put("records", records.count()));
            }
        } catch (WakeupException e) {
            // SIGTERM: leave the group
        } finally {
            consumer.close();
            print(JSON.createObjectNode().put("event", "closed"));
            closed.countDown();
        }
    }
}
