import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.state.internals.OffsetCheckpoint;

/**
 * Kafka Streams' own OffsetCheckpoint on a file, so a test holds wafka's
 * `.checkpoint` to Java's reader and writer:
 *   read FILE   prints each entry Java reads, `topic partition offset`, sorted
 *   write FILE  writes the entries given on stdin, one `topic partition offset` a line
 */
public class RigCheckpoint {
  public static void main(String[] args) throws Exception {
    OffsetCheckpoint checkpoint = new OffsetCheckpoint(new File(args[1]));
    if (args[0].equals("read")) {
      List<String> lines = new ArrayList<>();
      for (Map.Entry<TopicPartition, Long> e : checkpoint.read().entrySet())
        lines.add(e.getKey().topic() + " " + e.getKey().partition() + " " + e.getValue());
      Collections.sort(lines);
      for (String line : lines) System.out.println(line);
      return;
    }
    Map<TopicPartition, Long> offsets = new LinkedHashMap<>();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line; (line = in.readLine()) != null; ) {
      if (line.isBlank()) continue;
      String[] p = line.trim().split(" ");
      offsets.put(new TopicPartition(p[0], Integer.parseInt(p[1])), Long.parseLong(p[2]));
    }
    checkpoint.write(offsets);
  }
}
