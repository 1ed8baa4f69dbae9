import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.protocol.Errors;

/**
 * Checks src/protocol/spec/error-codes.tsv against a kafka-clients jar when the
 * spec is refreshed: prints code, name and retriable (a RetriableException)
 * of every Errors value; compare the first three columns.
 *   javac -cp kafka-clients.jar -d /tmp ErrorTable.java
 *   java -cp kafka-clients.jar:slf4j-api.jar:/tmp ErrorTable | diff - <(cut -f1-3 error-codes.tsv)
 */
public class ErrorTable {
  public static void main(String[] args) {
    System.out.println("code\tname\tretriable");
    for (Errors e : Errors.values()) {
      Throwable t = e.exception();
      boolean retriable = t instanceof RetriableException;
      System.out.println(e.code() + "\t" + e.name() + "\t" + retriable);
    }
  }
}
