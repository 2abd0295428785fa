package dev.leasehold.launcher;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.Objects;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A throwaway certificate authority and a server certificate it signed, for TLS tests.
 *
 * <p>The server certificate is valid for {@code IP:127.0.0.1} and {@code DNS:localhost}, so
 * clients can verify the host name. Keys are EC P-256, unencrypted PEM; certificates are valid
 * for two days.
 *
 * @param caCert     the CA certificate (PEM) that signed {@code serverCert}
 * @param serverCert the server certificate (PEM)
 * @param serverKey  the server's private key (PEM, unencrypted)
 */
public record TlsMaterial(Path caCert, Path serverCert, Path serverKey) {

    private static final Duration OPENSSL_TIMEOUT = Duration.ofSeconds(30);
    private static final String VALID_DAYS = "2";

    private static final String CA_CONFIG = """
            [req]
            distinguished_name = dn
            prompt = no
            default_md = sha256
            [dn]
            CN = Leasehold test CA
            [v3_ca]
            basicConstraints = critical, CA:TRUE
            keyUsage = critical, keyCertSign, cRLSign
            subjectKeyIdentifier = hash
            """;

    private static final String SERVER_CONFIG = """
            [req]
            distinguished_name = dn
            prompt = no
            default_md = sha256
            [dn]
            CN = localhost
            [v3_server]
            basicConstraints = critical, CA:FALSE
            keyUsage = critical, digitalSignature
            extendedKeyUsage = serverAuth
            subjectAltName = IP:127.0.0.1, DNS:localhost
            """;

    /** @throws NullPointerException if a path is null */
    public TlsMaterial {
        Objects.requireNonNull(caCert, "caCert");
        Objects.requireNonNull(serverCert, "serverCert");
        Objects.requireNonNull(serverKey, "serverKey");
    }

    /**
     * Generates a CA and a server certificate into {@code dir} (created if missing) with the
     * {@code openssl} command.
     *
     * @throws IllegalStateException if {@code openssl} is not on the {@code PATH} or fails
     * @throws UncheckedIOException if {@code dir} cannot be written
     */
    public static TlsMaterial generate(Path dir) {
        try {
            Files.createDirectories(dir);
            Path caConfig = Files.writeString(dir.resolve("ca.cnf"), CA_CONFIG);
            Path serverConfig = Files.writeString(dir.resolve("server.cnf"), SERVER_CONFIG);
            Path caKey = dir.resolve("ca.key");
            Path caCert = dir.resolve("ca.crt");
            Path serverKey = dir.resolve("server.key");
            Path serverCsr = dir.resolve("server.csr");
            Path serverCert = dir.resolve("server.crt");
            openssl("req", "-x509", "-new", "-nodes", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                    "-days", VALID_DAYS, "-config", caConfig, "-extensions", "v3_ca",
                    "-keyout", caKey, "-out", caCert);
            openssl("req", "-new", "-nodes", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                    "-config", serverConfig, "-keyout", serverKey, "-out", serverCsr);
            // A random serial, so certificates from different runs never look like the same one.
            String serial = Long.toString(new SecureRandom().nextLong() & Long.MAX_VALUE);
            openssl("x509", "-req", "-in", serverCsr, "-CA", caCert, "-CAkey", caKey, "-set_serial", serial,
                    "-days", VALID_DAYS, "-sha256", "-extfile", serverConfig, "-extensions", "v3_server",
                    "-out", serverCert);
            return new TlsMaterial(caCert, serverCert, serverKey);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write TLS material to " + dir, e);
        }
    }

    /**
     * A new client context that trusts exactly {@link #caCert()}; no client certificate.
     *
     * @throws UncheckedIOException  if the CA certificate cannot be read
     * @throws IllegalStateException if it is no X.509 certificate
     */
    public SSLContext sslContext() {
        return trusting(caCert);
    }

    private static void openssl(Object... args) {
        String[] command = new String[args.length + 1];
        command[0] = "openssl";
        for (int i = 0; i < args.length; i++) {
            command[i + 1] = args[i].toString();
        }
        Exec.Result result;
        try {
            result = Exec.run(OPENSSL_TIMEOUT, command);
        } catch (IOException e) {
            throw new IllegalStateException("cannot run openssl; install it (e.g. apt-get install openssl) "
                    + "so that it is on the PATH", e);
        }
        if (!result.succeeded()) {
            throw new IllegalStateException(String.join(" ", command) + " failed (exit code " + result.exitCode()
                    + "): " + result.output().strip());
        }
    }

    private static SSLContext trusting(Path caCert) {
        try (InputStream pem = Files.newInputStream(caCert)) {
            Certificate ca = CertificateFactory.getInstance("X.509").generateCertificate(pem);
            KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
            trusted.load(null, null);
            trusted.setCertificateEntry("leasehold-test-ca", ca);
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(trusted);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trust.getTrustManagers(), null);
            return context;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + caCert, e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot build a trust store from " + caCert, e);
        }
    }
}
