import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.kstream.Window;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.kstream.WindowedSerdes;
import org.apache.kafka.streams.kstream.internals.SessionWindow;
import org.apache.kafka.streams.kstream.internals.TimeWindow;

/**
 * Java's serdes (kafka-clients' Serdes and Kafka Streams' WindowedSerdes)
 * turning values into bytes and back, one JSON line per request on stdin,
 * one answer per line on stdout, in order:
 *
 *   {"op":"serialize","serde":S,"value":V}     -> {"bytes":BASE64|null}
 *   {"op":"deserialize","serde":S,"bytes":B64} -> {"value":V}
 *   a serde that throws                         -> {"error":CLASS,"message":M}
 *
 * S: "String", "Long", "Integer", "Double", "ByteArray", or a windowed one,
 * {"windowed":"time","inner":S,"windowSize":MS} / {"windowed":"session","inner":S}.
 * V (null is null), exact both ways whatever JSON does with it:
 *   String    {"utf16":[code units]} (lone surrogates included)
 *   Long      decimal string
 *   Integer   number
 *   Double    decimal string of the raw IEEE bits (doubleToRawLongBits: NaN payloads, -0)
 *   ByteArray base64
 *   windowed  {"key":V of the inner serde,"start":decimal,"end":decimal}
 */
public final class RigSerdes {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null;) {
            if (line.isBlank()) continue;
            JsonNode req = JSON.readTree(line);
            ObjectNode answer = F.objectNode();
            try {
                JsonNode spec = req.get("serde");
                @SuppressWarnings("unchecked")
                Serde<Object> serde = (Serde<Object>) serde(spec);
                if (req.get("op").asText().equals("serialize")) {
                    byte[] bytes = serde.serializer().serialize("rig", value(spec, req.get("value")));
                    answer.put("bytes", bytes == null ? null : Base64.getEncoder().encodeToString(bytes));
                } else {
                    JsonNode b = req.get("bytes");
                    byte[] bytes = b == null || b.isNull() ? null : Base64.getDecoder().decode(b.asText());
                    answer.set("value", json(spec, serde.deserializer().deserialize("rig", bytes)));
                }
            } catch (Exception e) {
                answer.put("error", e.getClass().getName());
                answer.put("message", String.valueOf(e.getMessage()));
            }
            out.println(JSON.writeValueAsString(answer));
        }
    }

    private static Serde<?> serde(JsonNode spec) {
        if (spec.isObject()) {
            Serde<?> inner = serde(spec.get("inner"));
            return spec.get("windowed").asText().equals("time")
                ? new WindowedSerdes.TimeWindowedSerde<>(inner, spec.get("windowSize").asLong())
                : new WindowedSerdes.SessionWindowedSerde<>(inner);
        }
        switch (spec.asText()) {
            case "String": return Serdes.String();
            case "Long": return Serdes.Long();
            case "Integer": return Serdes.Integer();
            case "Double": return Serdes.Double();
            case "ByteArray": return Serdes.ByteArray();
            default: throw new IllegalArgumentException("unknown serde " + spec);
        }
    }

    private static Object value(JsonNode spec, JsonNode v) {
        if (v == null || v.isNull()) return null;
        if (spec.isObject()) {
            long start = Long.parseLong(v.get("start").asText());
            long end = Long.parseLong(v.get("end").asText());
            Window w = spec.get("windowed").asText().equals("time") ? new TimeWindow(start, end) : new SessionWindow(start, end);
            return new Windowed<>(value(spec.get("inner"), v.get("key")), w);
        }
        switch (spec.asText()) {
            case "String": {
                JsonNode units = v.get("utf16");
                char[] chars = new char[units.size()];
                for (int i = 0; i < chars.length; i++) chars[i] = (char) units.get(i).asInt();
                return new String(chars);
            }
            case "Long": return Long.parseLong(v.asText());
            case "Integer": return v.asInt();
            case "Double": return Double.longBitsToDouble(Long.parseLong(v.asText()));
            default: return Base64.getDecoder().decode(v.asText());
        }
    }

    private static JsonNode json(JsonNode spec, Object v) {
        if (v == null) return F.nullNode();
        if (spec.isObject()) {
            Windowed<?> w = (Windowed<?>) v;
            ObjectNode o = F.objectNode();
            o.set("key", json(spec.get("inner"), w.key()));
            o.put("start", Long.toString(w.window().start()));
            o.put("end", Long.toString(w.window().end()));
            return o;
        }
        switch (spec.asText()) {
            case "String": {
                ArrayNode units = F.arrayNode();
                for (char c : ((String) v).toCharArray()) units.add((int) c);
                ObjectNode o = F.objectNode();
                o.set("utf16", units);
                return o;
            }
            case "Long": return F.textNode(Long.toString((Long) v));
            case "Integer": return F.numberNode((Integer) v);
            case "Double": return F.textNode(Long.toString(Double.doubleToRawLongBits((Double) v)));
            default: return F.textNode(Base64.getEncoder().encodeToString((byte[]) v));
        }
    }
}
