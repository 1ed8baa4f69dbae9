import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Arrays;

/**
 * Runs another main class (a broker, a tool, RigClient) and halts the JVM as
 * soon as the process that started it (the test process) is gone: however
 * the tests die, even by SIGKILL, no JVM of the rig outlives them. Watches
 * the parent rather than stdin so the tools keep their stdin.
 *
 * Usage: java -cp ... RigMain <main class> [args...]
 */
public final class RigMain {
    public static void main(String[] args) throws Throwable {
        ProcessHandle parent = ProcessHandle.current().parent().orElse(null);
        Thread watchdog = new Thread(() -> {
            while (parent != null && parent.isAlive()) {
                try {
                    Thread.sleep(500);
                } catch (InterruptedException e) {
                    return;
                }
            }
            Runtime.getRuntime().halt(143);
        }, "rig-parent-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        Method main = Class.forName(args[0]).getMethod("main", String[].class);
        try {
            main.invoke(null, (Object) Arrays.copyOfRange(args, 1, args.length));
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
