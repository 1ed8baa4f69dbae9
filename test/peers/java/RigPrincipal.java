import java.io.FileInputStream;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import org.apache.kafka.common.security.ssl.SslPrincipalMapper;

/**
 * Kafka's own answers for the principal tests (test/broker/ssl-principal.test.ts):
 * what SslPrincipalMapper makes of rules and subjects, and the subject
 * X500Principal.getName() gives a certificate (the form Kafka maps).
 *
 * Usage: RigPrincipal (--rules RULES | --cert FILE | DN)...
 * One line per argument after --rules: `rules\t<mapper>` or `invalid\t<message>`;
 * for --cert: `subject\t<RFC 2253 subject>`; for a DN: `name\t<name>` or `error\t<message>`.
 */
public final class RigPrincipal {
    public static void main(String[] args) throws Exception {
        SslPrincipalMapper mapper = null;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--rules")) {
                try {
                    mapper = SslPrincipalMapper.fromRules(args[++i]);
                    System.out.println("rules\t" + mapper);
                } catch (IllegalArgumentException e) {
                    mapper = null;
                    System.out.println("invalid\t" + e.getMessage().replace('\n', ' '));
                }
            } else if (args[i].equals("--cert")) {
                try (FileInputStream in = new FileInputStream(args[++i])) {
                    X509Certificate cert = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
                    System.out.println("subject\t" + cert.getSubjectX500Principal().getName());
                }
            } else {
                try {
                    System.out.println("name\t" + mapper.getName(args[i]));
                } catch (Exception e) {
                    System.out.println("error\t" + e.getClass().getSimpleName());
                }
            }
        }
    }
}
