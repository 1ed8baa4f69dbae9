import java.io.InputStream;
import java.lang.reflect.Method;
import java.util.Arrays;

/**
 * Runs another main class (a broker, a tool) and halts the JVM as soon as its
 * stdin ends: the test process holds the other end of that pipe, so however
 * the test process dies (even by SIGKILL), no JVM of the rig outlives it.
 *
 * Usage: java -cp ... RigMain <main class> [args...]
 */
public final class RigMain {
    public static void main(String[] args) throws Throwable {
        Thread watchdog = new Thread(() -> {
            try {
                InputStream in = System.in;
                byte[] buf = new byte[256];
                while (in.read(buf) >= 0) { /* only the end of the stream matters */ }
            } catch (Throwable ignored) {
                // an unreadable stdin is as good as a closed one
            }
            Runtime.getRuntime().halt(143);
        }, "rig-stdin-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        Method main = Class.forName(args[0]).getMethod("main", String[].class);
        main.invoke(null, (Object) Arrays.copyOfRange(args, 1, args.length));
    }
}
