import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Runs one of Kafka's own perf tools (ProducerPerformance, ConsumerPerformance)
 * in this JVM for the benchmarks (bench/support/java-contender.ts): first an
 * untimed warm-up invocation, then the timed one, and measures the timed one
 * as the Node children measure themselves: wall time, this process's CPU time
 * (every thread: the client's, GC, JIT) and RSS. The tool's own output is
 * captured and handed back, for its rate.
 *
 *   java -cp <kafka class path>:<dir> PerfRun <tool class> <warm-up args...> --- <timed args...>
 *
 * An empty warm-up (nothing before ---) skips it. Prints one JSON line last.
 */
public final class PerfRun {
  public static void main(String[] args) throws Exception {
    int split = Arrays.asList(args).indexOf("---");
    if (args.length < 2 || split < 1) throw new IllegalArgumentException("usage: PerfRun <tool class> <warm-up args...> --- <timed args...>");
    Method main = Class.forName(args[0]).getMethod("main", String[].class);
    String[] warmup = Arrays.copyOfRange(args, 1, split);
    String[] timed = Arrays.copyOfRange(args, split + 1, args.length);
    PrintStream out = System.out;
    long rssBaseline = status("VmRSS");

    if (warmup.length > 0) {
      System.setOut(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
      main.invoke(null, (Object) warmup);
    }
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
    com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    long cpu0 = os.getProcessCpuTime();
    long t0 = System.nanoTime();
    main.invoke(null, (Object) timed);
    long wallNs = System.nanoTime() - t0;
    long cpuNs = os.getProcessCpuTime() - cpu0;
    System.setOut(out);

    String text = captured.toString(StandardCharsets.UTF_8);
    out.println("{\"wallMs\":" + wallNs / 1e6 + ",\"cpuSec\":" + cpuNs / 1e9 + ",\"rssBaseline\":" + rssBaseline + ",\"rssPeak\":" + status("VmHWM")
        + ",\"output\":\"" + text.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n").replace("\r", "").replace("\t", " ") + "\"}");
    out.flush();
    // The tools leave no non-daemon threads behind, but do not count on it.
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
