import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * Writes the fixture of test/batch-header.test.ts with Apache Kafka's own
 * record classes (kafka-clients 4.4.0) and prints it as hex: a transactional
 * uncompressed batch, a gzip LogAppendTime batch, and a COMMIT marker.
 *
 *   java -cp kafka-clients-4.4.0.jar:slf4j-api-1.7.36.jar test/support/KafkaRecordSet.java
 */
public class KafkaRecordSet {
  static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  public static void main(String[] args) {
    ByteBuffer buf = ByteBuffer.allocate(4096);
    MemoryRecordsBuilder txn = MemoryRecords.builder(buf, RecordBatch.MAGIC_VALUE_V2, Compression.NONE, TimestampType.CREATE_TIME,
        1000L, RecordBatch.NO_TIMESTAMP, 4242L, (short) 7, 100, true, false, 5);
    txn.append(1700000000000L, b("k0"), b("v0"));
    txn.append(1700000000005L, b("k1"), b("value one"));
    txn.append(1700000000003L, null, b("v2"));
    txn.close();
    buf = txn.buffer();
    MemoryRecordsBuilder gzip = MemoryRecords.builder(buf, RecordBatch.MAGIC_VALUE_V2, Compression.gzip().build(), TimestampType.LOG_APPEND_TIME,
        1003L, 1700000009999L, RecordBatch.NO_PRODUCER_ID, RecordBatch.NO_PRODUCER_EPOCH, RecordBatch.NO_SEQUENCE, false, false, 6);
    gzip.append(1700000001000L, b("a"), b("gzip a"));
    gzip.append(1700000001001L, b("b"), b("gzip b"));
    gzip.close();
    buf = gzip.buffer();
    MemoryRecords marker = MemoryRecords.withEndTransactionMarker(1005L, 1700000010000L, 6, 4242L, (short) 7,
        new EndTransactionMarker(ControlRecordType.COMMIT, 3));
    buf.put(marker.buffer());
    buf.flip();
    StringBuilder hex = new StringBuilder();
    while (buf.hasRemaining()) hex.append(String.format("%02x", buf.get()));
    System.out.println(hex);
  }
}
