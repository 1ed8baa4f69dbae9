import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Java's KafkaShareConsumer in the share-group benchmark (bench/share.ts): one
 * member of a fresh share group reads N records with a poll() loop, in the
 * implicit or explicit acknowledgement mode (explicit: acknowledge(record),
 * ACCEPT, for every record), adding up each record's key and value sizes.
 * Measured as the Node children measure themselves: wall time and this
 * process's CPU time (every thread) from just before subscribing to the Nth
 * record, peak RSS (VmHWM). Prints one JSON line.
 *
 *   java -cp <kafka class path>:<dir> SharePerf BOOTSTRAP GROUP TOPIC N implicit|explicit
 */
public final class SharePerf {
  public static void main(String[] args) throws Exception {
    String bootstrap = args[0], group = args[1], topic = args[2], mode = args[4];
    long target = Long.parseLong(args[3]);
    long rssBaseline = status("VmRSS");
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, "bench-java");
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put("share.acknowledgement.mode", mode);
    boolean explicit = mode.equals("explicit");
    com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    long records = 0, bytes = 0, firstNs = -1, wallNs, cpuNs;
    try (KafkaShareConsumer<byte[], byte[]> consumer = new KafkaShareConsumer<>(p)) {
      long cpu0 = os.getProcessCpuTime();
      long t0 = System.nanoTime();
      consumer.subscribe(List.of(topic));
      while (records < target) {
        ConsumerRecords<byte[], byte[]> polled = consumer.poll(Duration.ofMillis(1000));
        if (firstNs < 0 && !polled.isEmpty()) firstNs = System.nanoTime() - t0;
        for (ConsumerRecord<byte[], byte[]> r : polled) {
          if (r.key() != null) bytes += r.key().length;
          if (r.value() != null) bytes += r.value().length;
          if (explicit) consumer.acknowledge(r);
          records++;
        }
        if (System.nanoTime() - t0 > 200_000_000_000L) throw new IllegalStateException("gave up after 200 s with " + records + " records");
      }
      wallNs = System.nanoTime() - t0;
      cpuNs = os.getProcessCpuTime() - cpu0;
    }
    System.out.println("{\"wallMs\":" + wallNs / 1e6 + ",\"cpuSec\":" + cpuNs / 1e9 + ",\"rssBaseline\":" + rssBaseline + ",\"rssPeak\":" + status("VmHWM")
        + ",\"records\":" + records + ",\"bytes\":" + bytes + ",\"firstMessageMs\":" + firstNs / 1e6 + "}");
    System.out.flush();
    System.exit(0);
  }

  /** A field of /proc/self/status in bytes (Linux; -1 elsewhere): VmRSS now, VmHWM the peak so far. */
  private static long status(String field) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith(field + ":")) return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
      }
    } catch (Exception e) {
      // not Linux
    }
    return -1;
  }
}
