import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.GlobalKTable;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.JoinWindows;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.kstream.SessionWindowedKStream;
import org.apache.kafka.streams.kstream.SessionWindows;
import org.apache.kafka.streams.kstream.SlidingWindows;
import org.apache.kafka.streams.kstream.TableJoined;
import org.apache.kafka.streams.kstream.StreamJoined;
import org.apache.kafka.streams.kstream.Suppressed;
import org.apache.kafka.streams.kstream.TimeWindowedKStream;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.kstream.ValueJoiner;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.kstream.WindowedSerdes;
import org.apache.kafka.streams.processor.api.ContextualProcessor;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.SessionStore;
import org.apache.kafka.streams.state.WindowStore;

/**
 * Java Kafka Streams applications for the rig's tests: the reference a
 * wafka/streams topology is held to, and a real Streams client for the
 * embedded broker. Every topic is String keys and String values in, and the
 * stores and internal topics have fixed names (below), so another
 * implementation can build the same topology.
 *
 *   APP BOOTSTRAP APPLICATION_ID --inputs T[,T2] --output T [--count N] [--describe]
 *       [--window-ms N] [--grace-ms N] [--advance-ms N] [--gap-ms N] [--join inner|left|outer]
 *       [--suppress] [--rekey] [--name NAME] [--partitions N] [--prop k=v]...
 *
 * APP (its inputs; its output key and value):
 *   wordcount          [text]: words of each value (lower case, Locale.ROOT, split on \W+, empty
 *                      words dropped), grouped by word, counted in store "counts"; String, Long
 *   windowed-count     [events]: per key, counted in TimeWindows.ofSizeAndGrace(window, grace)
 *                      (hopping with --advance-ms) in store "windowed-counts"; time-windowed String, Long
 *   sliding-count      [events]: per key, counted in SlidingWindows.ofTimeDifferenceAndGrace(window,
 *                      grace) in store "sliding-counts"; time-windowed (size: window) String, Long
 *   sliding-aggregate  [events]: per key, in the same SlidingWindows, aggregate("", agg + "+" + v) in
 *                      store "sliding-aggs" to the output, and reduce(a + "/" + v) in store
 *                      "sliding-reduced" to <output>-reduced; time-windowed (size: window) String, String
 *   stream-table-join  [stream, table]: stream.join(table) (--join left: leftJoin), value "v+t"
 *                      (a missing side is "null"), table in store "table"; String, String; with
 *                      --rekey the stream is keyed by its value first (selectKey: Java repartitions)
 *   stream-globaltable-join [stream, table]: stream.join / leftJoin(globalTable, (k, v) -> v, joiner)
 *                      (--join), value "v+t" (a missing side is "null"), the global table in store
 *                      "global" (--global-first: declared before the stream; --name: its Consumed
 *                      name); String, String
 *   table-table-join   [left, right]: left.join / leftJoin / outerJoin(right) (--join), value "l+r",
 *                      tables in stores "left" and "right"; String, String
 *   fk-join            [left, right]: left.join / leftJoin(right, foreign key, joiner, TableJoined) (--join
 *                      inner|left; --name: TableJoined.as(name)), the foreign key the left value's text
 *                      before its first ':' (none: null), value "l+r", tables in stores "left" and
 *                      "right"; String, String
 *   stream-stream-join [left, right]: left.join / leftJoin / outerJoin(right) (--join) within
 *                      JoinWindows.ofTimeDifferenceAndGrace(window, grace) (--before-ms / --after-ms
 *                      then set before() / after()), value "l+r", StreamJoined.with(String x3), stores
 *                      unnamed (KSTREAM-JOINTHIS-...-store, ...); String, String
 *   session-count      [events]: per key, counted in SessionWindows.ofInactivityGapAndGrace(gap,
 *                      grace) in store "session-counts"; session-windowed String, Long
 *   session-aggregate  [events]: per key, in the same SessionWindows, aggregate("", agg + "+" + v,
 *                      merger a1 + "|" + a2) in store "session-aggs" to the output, and
 *                      reduce(a + "/" + v) in store "session-reduced" to <output>-reduced;
 *                      session-windowed String, String
 *   repartition-count  [text]: each value made the key (selectKey), through repartition(Repartitioned
 *                      .with(String, String)) named by --name, of --partitions partitions; grouped by
 *                      key, counted in store "counts"; String, Long
 *   stream-time        [events]: each record's value replaced by the task's stream time as its
 *                      processor sees it (ProcessorContext.currentStreamTimeMs()); String, String
 * --global-first: stream-globaltable-join's global table declared first.
 * --suppress: the windowed, sliding and session counts through suppress(untilWindowCloses(unbounded())).
 * Defaults: --window-ms 60000, --grace-ms 0, --gap-ms 5000, --join inner.
 *
 * --prop sets any StreamsConfig (and client configs with Streams' prefixes):
 * processing.guarantee, commit.interval.ms, group.protocol, state.dir, ...
 * Without state.dir, a fresh temporary directory, removed at exit.
 *
 * stdout, JSON lines: {"event":"topology","description"} (Topology.describe()), then (unless
 * --describe, which stops there) {"event":"state","from","to"} per state change,
 * {"event":"error","error","message"} for an uncaught exception (the client then shuts down),
 * {"event":"progress","records"} when the committed input offsets' sum changes,
 * {"event":"committed","records"} when --count is reached, {"event":"closed","clean","state"}.
 * It runs until the application's committed offsets on the inputs sum to --count (the inputs
 * fresh for the run, so offsets count records) and its committed offsets on its repartition
 * topics have reached those topics' ends (an Admin client asks every 200 ms, whichever instance
 * processed them), stdin closes, or SIGTERM; then closes (which flushes and commits) and exits
 * 0, or 1 if the client failed or did not close within 60 s.
 */
public final class RigStreams {
    private static final PrintStream OUT = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Serde<String> S = Serdes.String();
    private static final Serde<Long> L = Serdes.Long();

    private static synchronized void emit(ObjectNode o) {
        try {
            OUT.println(JSON.writeValueAsString(o));
        } catch (IOException e) {
            throw new RuntimeException(e);
        }
    }

    private static ObjectNode event(String name) {
        return JsonNodeFactory.instance.objectNode().put("event", name);
    }

    public static void main(String[] argv) throws Exception {
        if (argv.length < 3) {
            System.err.println("usage: RigStreams APP BOOTSTRAP APPLICATION_ID --inputs T[,T2] --output T [options] (see the class comment)");
            System.exit(64);
        }
        String app = argv[0];
        Map<String, String> opt = new HashMap<>();
        Properties props = new Properties();
        for (int i = 3; i < argv.length; i++) {
            String a = argv[i];
            if (a.equals("--describe") || a.equals("--suppress") || a.equals("--rekey") || a.equals("--global-first")) opt.put(a, "true");
            else if (a.equals("--prop")) {
                String kv = argv[++i];
                props.setProperty(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
            } else if (a.startsWith("--") && i + 1 < argv.length) opt.put(a, argv[++i]);
            else throw new IllegalArgumentException("unknown argument " + a);
        }
        List<String> inputs = Arrays.asList(required(opt, "--inputs").split(","));
        Topology topology = topology(app, inputs, required(opt, "--output"), opt);
        emit(event("topology").put("description", topology.describe().toString()));
        if (opt.containsKey("--describe")) return;

        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, argv[1]);
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, argv[2]);
        Path tempState = null;
        if (!props.containsKey(StreamsConfig.STATE_DIR_CONFIG)) {
            tempState = Files.createTempDirectory("rig-streams-");
            props.put(StreamsConfig.STATE_DIR_CONFIG, tempState.toString());
        }
        long want = opt.containsKey("--count") ? Long.parseLong(opt.get("--count")) : -1;

        KafkaStreams streams = new KafkaStreams(topology, props);
        CountDownLatch finish = new CountDownLatch(1);
        streams.setStateListener((to, from) -> {
            emit(event("state").put("from", from.name()).put("to", to.name()));
            if (to == KafkaStreams.State.ERROR || to == KafkaStreams.State.PENDING_ERROR) finish.countDown();
        });
        streams.setUncaughtExceptionHandler(e -> {
            e.printStackTrace();
            emit(event("error").put("error", e.getClass().getName()).put("message", String.valueOf(e.getMessage())));
            return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        });
        Thread stdin = new Thread(() -> {
            try {
                while (System.in.read() >= 0) {
                    // only its end matters
                }
            } catch (IOException ignored) {
                // closed
            }
            finish.countDown();
        }, "rig-stdin");
        stdin.setDaemon(true);
        stdin.start();
        CountDownLatch closed = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            finish.countDown();
            try {
                closed.await(70, TimeUnit.SECONDS);
            } catch (InterruptedException ignored) {
                // exiting anyway
            }
        }));

        streams.start();
        if (want >= 0) {
            Thread watcher = new Thread(() -> watchCommitted(argv[1], argv[2], inputs, want, finish), "rig-count");
            watcher.setDaemon(true);
            watcher.start();
        }
        finish.await();
        boolean clean = streams.close(Duration.ofSeconds(60));
        KafkaStreams.State state = streams.state();
        emit(event("closed").put("clean", clean).put("state", state.name()));
        if (tempState != null) removeTree(tempState);
        closed.countDown();
        OUT.flush();
        System.exit(clean && state == KafkaStreams.State.NOT_RUNNING ? 0 : 1);
    }

    private static String required(Map<String, String> opt, String name) {
        String v = opt.get(name);
        if (v == null) throw new IllegalArgumentException(name + " is required");
        return v;
    }

    private static long ms(Map<String, String> opt, String name, long otherwise) {
        return opt.containsKey(name) ? Long.parseLong(opt.get(name)) : otherwise;
    }

    private static Topology topology(String app, List<String> inputs, String output, Map<String, String> opt) {
        StreamsBuilder b = new StreamsBuilder();
        String join = opt.getOrDefault("--join", "inner");
        ValueJoiner<String, String, String> joiner = (l, r) -> l + "+" + r;
        switch (app) {
            case "wordcount":
                b.stream(inputs.get(0), Consumed.with(S, S))
                    .flatMapValues(RigStreams::words)
                    .groupBy((key, word) -> word, Grouped.with(S, S))
                    .count(Materialized.<String, Long, KeyValueStore<Bytes, byte[]>>as("counts").withKeySerde(S).withValueSerde(L))
                    .toStream()
                    .to(output, Produced.with(S, L));
                break;
            case "stream-time":
                b.stream(inputs.get(0), Consumed.with(S, S))
                    .process(() -> new ContextualProcessor<String, String, String, String>() {
                        @Override
                        public void process(Record<String, String> r) {
                            context().forward(r.withValue(Long.toString(context().currentStreamTimeMs())));
                        }
                    })
                    .to(output, Produced.with(S, S));
                break;
            case "repartition-count": {
                Repartitioned<String, String> repartitioned = Repartitioned.with(S, S);
                if (opt.containsKey("--name")) repartitioned = repartitioned.withName(opt.get("--name"));
                if (opt.containsKey("--partitions")) repartitioned = repartitioned.withNumberOfPartitions(Integer.parseInt(opt.get("--partitions")));
                b.stream(inputs.get(0), Consumed.with(S, S))
                    .selectKey((key, value) -> value)
                    .repartition(repartitioned)
                    .groupByKey(Grouped.with(S, S))
                    .count(Materialized.<String, Long, KeyValueStore<Bytes, byte[]>>as("counts").withKeySerde(S).withValueSerde(L))
                    .toStream()
                    .to(output, Produced.with(S, L));
                break;
            }
            case "windowed-count": {
                long size = ms(opt, "--window-ms", 60_000);
                TimeWindows windows = TimeWindows.ofSizeAndGrace(Duration.ofMillis(size), Duration.ofMillis(ms(opt, "--grace-ms", 0)));
                if (opt.containsKey("--advance-ms")) windows = windows.advanceBy(Duration.ofMillis(Long.parseLong(opt.get("--advance-ms"))));
                KTable<Windowed<String>, Long> counts = b.stream(inputs.get(0), Consumed.with(S, S))
                    .groupByKey(Grouped.with(S, S))
                    .windowedBy(windows)
                    .count(Materialized.<String, Long, WindowStore<Bytes, byte[]>>as("windowed-counts").withKeySerde(S).withValueSerde(L));
                if (opt.containsKey("--suppress")) counts = counts.suppress(Suppressed.untilWindowCloses(Suppressed.BufferConfig.unbounded()));
                counts.toStream().to(output, Produced.with(WindowedSerdes.timeWindowedSerdeFrom(String.class, size), L));
                break;
            }
            case "sliding-count": {
                long difference = ms(opt, "--window-ms", 60_000);
                SlidingWindows windows = SlidingWindows.ofTimeDifferenceAndGrace(Duration.ofMillis(difference), Duration.ofMillis(ms(opt, "--grace-ms", 0)));
                KTable<Windowed<String>, Long> counts = b.stream(inputs.get(0), Consumed.with(S, S))
                    .groupByKey(Grouped.with(S, S))
                    .windowedBy(windows)
                    .count(Materialized.<String, Long, WindowStore<Bytes, byte[]>>as("sliding-counts").withKeySerde(S).withValueSerde(L));
                if (opt.containsKey("--suppress")) counts = counts.suppress(Suppressed.untilWindowCloses(Suppressed.BufferConfig.unbounded()));
                counts.toStream().to(output, Produced.with(WindowedSerdes.timeWindowedSerdeFrom(String.class, difference), L));
                break;
            }
            case "sliding-aggregate": {
                long difference = ms(opt, "--window-ms", 60_000);
                SlidingWindows windows = SlidingWindows.ofTimeDifferenceAndGrace(Duration.ofMillis(difference), Duration.ofMillis(ms(opt, "--grace-ms", 0)));
                TimeWindowedKStream<String, String> windowed = b.stream(inputs.get(0), Consumed.with(S, S))
                    .groupByKey(Grouped.with(S, S))
                    .windowedBy(windows);
                Serde<Windowed<String>> keys = WindowedSerdes.timeWindowedSerdeFrom(String.class, difference);
                windowed.aggregate(() -> "", (k, v, agg) -> agg + "+" + v,
                        Materialized.<String, String, WindowStore<Bytes, byte[]>>as("sliding-aggs").withKeySerde(S).withValueSerde(S))
                    .toStream()
                    .to(output, Produced.with(keys, S));
                windowed.reduce((a, v) -> a + "/" + v,
                        Materialized.<String, String, WindowStore<Bytes, byte[]>>as("sliding-reduced").withKeySerde(S).withValueSerde(S))
                    .toStream()
                    .to(output + "-reduced", Produced.with(keys, S));
                break;
            }
            case "stream-table-join": {
                KStream<String, String> stream = b.stream(inputs.get(0), Consumed.with(S, S));
                if (opt.containsKey("--rekey")) stream = stream.selectKey((key, value) -> value);
                KTable<String, String> table = b.table(inputs.get(1), Consumed.with(S, S),
                    Materialized.<String, String, KeyValueStore<Bytes, byte[]>>as("table").withKeySerde(S).withValueSerde(S));
                KStream<String, String> joined = switch (join) {
                    case "inner" -> stream.join(table, joiner);
                    case "left" -> stream.leftJoin(table, joiner);
                    default -> throw new IllegalArgumentException("a stream-table join is inner or left, not " + join);
                };
                joined.to(output, Produced.with(S, S));
                break;
            }
            case "stream-globaltable-join": {
                // --global-first: the global table declared before the stream (its node group then id 0).
                Consumed<String, String> consumed = opt.containsKey("--name") ? Consumed.with(S, S).withName(opt.get("--name")) : Consumed.with(S, S);
                Materialized<String, String, KeyValueStore<Bytes, byte[]>> global =
                    Materialized.<String, String, KeyValueStore<Bytes, byte[]>>as("global").withKeySerde(S).withValueSerde(S);
                GlobalKTable<String, String> table = opt.containsKey("--global-first") ? b.globalTable(inputs.get(1), consumed, global) : null;
                KStream<String, String> stream = b.stream(inputs.get(0), Consumed.with(S, S));
                if (table == null) table = b.globalTable(inputs.get(1), consumed, global);
                KStream<String, String> joined = switch (join) {
                    case "inner" -> stream.join(table, (key, value) -> value, joiner);
                    case "left" -> stream.leftJoin(table, (key, value) -> value, joiner);
                    default -> throw new IllegalArgumentException("a stream-globalTable join is inner or left, not " + join);
                };
                joined.to(output, Produced.with(S, S));
                break;
            }
            case "table-table-join": {
                KTable<String, String> left = b.table(inputs.get(0), Consumed.with(S, S),
                    Materialized.<String, String, KeyValueStore<Bytes, byte[]>>as("left").withKeySerde(S).withValueSerde(S));
                KTable<String, String> right = b.table(inputs.get(1), Consumed.with(S, S),
                    Materialized.<String, String, KeyValueStore<Bytes, byte[]>>as("right").withKeySerde(S).withValueSerde(S));
                KTable<String, String> joined = switch (join) {
                    case "inner" -> left.join(right, joiner);
                    case "left" -> left.leftJoin(right, joiner);
                    case "outer" -> left.outerJoin(right, joiner);
                    default -> throw new IllegalArgumentException("a table-table join is inner, left or outer, not " + join);
                };
                joined.toStream().to(output, Produced.with(S, S));
                break;
            }
            case "fk-join": {
                // The foreign key is the left value's text before its first ':' (none: a null foreign key).
                KTable<String, String> left = b.table(inputs.get(0), Consumed.with(S, S),
                    Materialized.<String, String, KeyValueStore<Bytes, byte[]>>as("left").withKeySerde(S).withValueSerde(S));
                KTable<String, String> right = b.table(inputs.get(1), Consumed.with(S, S),
                    Materialized.<String, String, KeyValueStore<Bytes, byte[]>>as("right").withKeySerde(S).withValueSerde(S));
                java.util.function.Function<String, String> fk = v -> v.indexOf(':') < 0 ? null : v.substring(0, v.indexOf(':'));
                TableJoined<String, String> named = opt.containsKey("--name") ? TableJoined.as(opt.get("--name")) : TableJoined.with(null, null);
                KTable<String, String> joined = switch (join) {
                    case "inner" -> left.join(right, fk, joiner, named);
                    case "left" -> left.leftJoin(right, fk, joiner, named);
                    default -> throw new IllegalArgumentException("a foreign-key join is inner or left, not " + join);
                };
                joined.toStream().to(output, Produced.with(S, S));
                break;
            }
            case "stream-stream-join": {
                JoinWindows windows = JoinWindows.ofTimeDifferenceAndGrace(Duration.ofMillis(ms(opt, "--window-ms", 60_000)),
                    Duration.ofMillis(ms(opt, "--grace-ms", 0)));
                if (opt.containsKey("--before-ms")) windows = windows.before(Duration.ofMillis(Long.parseLong(opt.get("--before-ms"))));
                if (opt.containsKey("--after-ms")) windows = windows.after(Duration.ofMillis(Long.parseLong(opt.get("--after-ms"))));
                KStream<String, String> left = b.stream(inputs.get(0), Consumed.with(S, S));
                KStream<String, String> right = b.stream(inputs.get(1), Consumed.with(S, S));
                StreamJoined<String, String, String> with = StreamJoined.with(S, S, S);
                KStream<String, String> joined = switch (join) {
                    case "inner" -> left.join(right, joiner, windows, with);
                    case "left" -> left.leftJoin(right, joiner, windows, with);
                    case "outer" -> left.outerJoin(right, joiner, windows, with);
                    default -> throw new IllegalArgumentException("a stream-stream join is inner, left or outer, not " + join);
                };
                joined.to(output, Produced.with(S, S));
                break;
            }
            case "session-count": {
                SessionWindows windows = SessionWindows.ofInactivityGapAndGrace(Duration.ofMillis(ms(opt, "--gap-ms", 5_000)),
                    Duration.ofMillis(ms(opt, "--grace-ms", 0)));
                KTable<Windowed<String>, Long> counts = b.stream(inputs.get(0), Consumed.with(S, S))
                    .groupByKey(Grouped.with(S, S))
                    .windowedBy(windows)
                    .count(Materialized.<String, Long, SessionStore<Bytes, byte[]>>as("session-counts").withKeySerde(S).withValueSerde(L));
                if (opt.containsKey("--suppress")) counts = counts.suppress(Suppressed.untilWindowCloses(Suppressed.BufferConfig.unbounded()));
                counts.toStream().to(output, Produced.with(WindowedSerdes.sessionWindowedSerdeFrom(String.class), L));
                break;
            }
            case "session-aggregate": {
                SessionWindows windows = SessionWindows.ofInactivityGapAndGrace(Duration.ofMillis(ms(opt, "--gap-ms", 5_000)),
                    Duration.ofMillis(ms(opt, "--grace-ms", 0)));
                SessionWindowedKStream<String, String> sessions = b.stream(inputs.get(0), Consumed.with(S, S))
                    .groupByKey(Grouped.with(S, S))
                    .windowedBy(windows);
                Serde<Windowed<String>> keys = WindowedSerdes.sessionWindowedSerdeFrom(String.class);
                sessions.aggregate(() -> "", (k, v, agg) -> agg + "+" + v, (k, a1, a2) -> a1 + "|" + a2,
                        Materialized.<String, String, SessionStore<Bytes, byte[]>>as("session-aggs").withKeySerde(S).withValueSerde(S))
                    .toStream()
                    .to(output, Produced.with(keys, S));
                sessions.reduce((a, v) -> a + "/" + v,
                        Materialized.<String, String, SessionStore<Bytes, byte[]>>as("session-reduced").withKeySerde(S).withValueSerde(S))
                    .toStream()
                    .to(output + "-reduced", Produced.with(keys, S));
                break;
            }
            default:
                throw new IllegalArgumentException("unknown app " + app);
        }
        return b.build();
    }

    private static List<String> words(String text) {
        if (text == null) return List.of();
        return Arrays.stream(text.toLowerCase(Locale.ROOT).split("\\W+")).filter(w -> !w.isEmpty()).collect(Collectors.toList());
    }

    /**
     * Until the group's committed offsets on `inputs` sum to `want` and, past that, its
     * committed offsets on its repartition topics have reached their ends (the later
     * sub-topologies done with what the inputs led to), asking every 200 ms; then `finish`.
     */
    private static void watchCommitted(String bootstrap, String group, List<String> inputs, long want, CountDownLatch finish) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, group + "-rig-count");
        try (Admin admin = Admin.create(p)) {
            long reported = 0;
            while (finish.getCount() > 0) {
                try {
                    Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group)
                        .partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS);
                    long sum = 0;
                    for (Map.Entry<TopicPartition, OffsetAndMetadata> e : offsets.entrySet()) {
                        if (e.getValue() != null && inputs.contains(e.getKey().topic())) sum += e.getValue().offset();
                    }
                    if (sum != reported) {
                        emit(event("progress").put("records", sum));
                        reported = sum;
                    }
                    if (sum >= want && repartitionsDone(admin, group, offsets)) {
                        emit(event("committed").put("records", sum));
                        finish.countDown();
                        return;
                    }
                } catch (Exception e) {
                    // the group may not exist yet: ask again
                }
                Thread.sleep(200);
            }
        } catch (InterruptedException ignored) {
            // exiting
        }
    }

    /** Whether `committed` has reached the end (read_committed) of every partition of the application's repartition topics (and a foreign-key join's subscription and response topics, <name>-topic). */
    private static boolean repartitionsDone(Admin admin, String appId, Map<TopicPartition, OffsetAndMetadata> committed) throws Exception {
        List<String> topics = admin.listTopics().names().get(10, TimeUnit.SECONDS).stream()
            .filter(t -> t.startsWith(appId + "-") && (t.endsWith("-repartition") || t.endsWith("-topic")))
            .collect(Collectors.toList());
        if (topics.isEmpty()) return true;
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (TopicDescription d : admin.describeTopics(topics).allTopicNames().get(10, TimeUnit.SECONDS).values()) {
            for (TopicPartitionInfo info : d.partitions()) latest.put(new TopicPartition(d.name(), info.partition()), OffsetSpec.latest());
        }
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends = admin
            .listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all().get(10, TimeUnit.SECONDS);
        for (Map.Entry<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> e : ends.entrySet()) {
            OffsetAndMetadata c = committed.get(e.getKey());
            if ((c == null ? 0 : c.offset()) < e.getValue().offset()) return false;
        }
        return true;
    }

    private static void removeTree(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
        } catch (IOException ignored) {
            // a temporary directory: the OS cleans it
        }
    }
}
