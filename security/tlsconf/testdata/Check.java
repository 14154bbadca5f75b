// Prints what Java and Kafka make of certificates and DNs, for the Go
// tests to compare with:
//   java Check.java dn <cert.der>...          X500Principal.getName() per cert
//   java -cp <kafka libs> Check.java map (<rules> <dn>)...
//                                             SslPrincipalMapper per pair
import java.io.FileInputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;

public class Check {
    public static void main(String[] args) throws Exception {
        if (args[0].equals("dn")) {
            CertificateFactory cf = CertificateFactory.getInstance("X.509");
            for (int i = 1; i < args.length; i++) {
                try (FileInputStream in = new FileInputStream(args[i])) {
                    X509Certificate c = (X509Certificate) cf.generateCertificate(in);
                    System.out.println(c.getSubjectX500Principal().getName());
                }
            }
            return;
        }
        Class<?> cls = Class.forName("org.apache.kafka.common.security.ssl.SslPrincipalMapper");
        Method getName = cls.getMethod("getName", String.class);
        for (int i = 1; i + 1 < args.length; i += 2) {
            try {
                Object mapper = cls.getMethod("fromRules", String.class).invoke(null, args[i]);
                System.out.println("OK " + getName.invoke(mapper, args[i + 1]));
            } catch (InvocationTargetException e) {
                System.out.println("ERR " + e.getCause().getClass().getSimpleName());
            }
        }
    }
}
