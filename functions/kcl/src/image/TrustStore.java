import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.stream.Stream;

/**
 * Writes the Java trust store of the worker image from Debian's ca-certificates (the *.crt files
 * under a folder), as Debian's ca-certificates-java would at install time: a PKCS12 store of
 * trusted certificates. No MAC and no certificate encryption (both carry a random salt), so the
 * same certificates always give the same bytes; the JVM reads it without a password, as it reads
 * its default cacerts. Run by build-base.sh with the build's JDK: java TrustStore.java DIR OUT.
 */
public final class TrustStore {
    public static void main(String[] args) throws Exception {
        System.setProperty("keystore.pkcs12.certProtectionAlgorithm", "NONE");
        System.setProperty("keystore.pkcs12.macAlgorithm", "NONE");
        List<Path> certificates;
        try (Stream<Path> files = Files.walk(Path.of(args[0]))) {
            certificates = files.filter(f -> f.toString().endsWith(".crt")).sorted().toList();
        }
        if (certificates.isEmpty()) {
            throw new IllegalStateException("no *.crt under " + args[0]);
        }
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        CertificateFactory factory = CertificateFactory.getInstance("X.509");
        for (Path file : certificates) {
            try (InputStream in = Files.newInputStream(file)) {
                X509Certificate certificate = (X509Certificate) factory.generateCertificate(in);
                String alias = "debian:" + file.getFileName().toString().toLowerCase();
                store.setCertificateEntry(alias, certificate);
            }
        }
        try (OutputStream out = Files.newOutputStream(Path.of(args[1]))) {
            store.store(out, new char[0]);
        }
        System.out.println("trust store: " + certificates.size() + " certificates");
    }
}
