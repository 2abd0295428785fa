package dev.leasehold.examples;

import dev.leasehold.Lease;
import dev.leasehold.LockClient;
import dev.leasehold.LockOptions;
import dev.leasehold.launcher.RedisClusterGroup;
import dev.leasehold.launcher.RedisSentinelGroup;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.launcher.TlsMaterial;
import dev.leasehold.redis.RedisLocks;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/redis.md, and README's URI forms: each on a server of that shape (a password, an ACL user,
 * TLS with a private CA, a master behind three Sentinels, a three-master Cluster).
 */
class RedisExamplesTest {

    private static final String PASSWORD = "s3cret-default";
    private static final String ACL_PASSWORD = "s3cret-app";

    @TempDir
    static Path dir;
    private static TlsMaterial tls;
    private static RedisServer secured;
    private static RedisServer tlsServer;
    private static RedisSentinelGroup sentinels;
    private static RedisClusterGroup cluster;

    @BeforeAll
    static void start() {
        secured = RedisServer.builder().requirePass(PASSWORD).aclUser("app", ACL_PASSWORD).start();
        tls = TlsMaterial.generate(dir);
        tlsServer = RedisServer.builder().tls(tls).start();
        sentinels = RedisSentinelGroup.start(1, null);
        cluster = RedisClusterGroup.start(3, 0);
    }

    @AfterAll
    static void stop() {
        for (AutoCloseable server : new AutoCloseable[] {cluster, sentinels, tlsServer, secured}) {
            try {
                if (server != null) {
                    server.close();
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }

    private static String hostPort(RedisServer server) {
        return server.host() + ":" + server.port();
    }

    @Test
    void everyUriFormOfTheReadmeConnects() {
        List<String> forms = List.of(
                "redis://:" + PASSWORD + "@" + hostPort(secured),             // password only (the default user)
                "redis://app:" + ACL_PASSWORD + "@" + hostPort(secured) + "/0", // an ACL user, database 0
                sentinels.uri(),                                              // redis-sentinel://host:port,...#mymaster
                "redis-cluster://" + String.join(",", cluster.seedUris()).replace("redis://", ""));
        for (String uri : forms) {
            try (LockClient locks = RedisLocks.connect(uri);
                 Lease lease = locks.lock("uri-forms").acquire(Duration.ofSeconds(5))) {
                assertThat(lease.isValid()).as(uri.replace(PASSWORD, "***").replace(ACL_PASSWORD, "***")).isTrue();
            }
        }
    }

    @Test
    void theBuilderWithTlsAndAPrivateCa() {
        String uri = tlsServer.uri();
        Path privateCa = tls.caCert();
        // tag::builder[]
        LockClient locks = RedisLocks.builder()
                .uri(uri)                                         // e.g. rediss://app:secret@redis.internal:6380
                .trustedCertificate(privateCa)                    // optional: the PEM file of a private CA for TLS
                .operationTimeout(Duration.ofSeconds(3))          // bound on every server call
                .maxRecheck(Duration.ofSeconds(1))                // a lost release message costs at most this
                .fenceRetention(Duration.ofMinutes(10))           // how long the fence key outlives the last acquire
                .keyPrefix("lock:")                               // every key of this client's locks under lock:
                .connect();
        // end::builder[]
        try (locks; Lease lease = locks.lock("tls").acquire(Duration.ZERO)) {
            assertThat(locks.describe()).startsWith("rediss://");
            assertThat(lease.lockName()).isEqualTo("lock:tls");
        }
    }

    @Test
    void sentinelClusterAndReplicaAcknowledgement() {
        String sentinelUri = sentinels.uri();
        String seed1 = cluster.seedUris().get(0);
        String seed2 = cluster.seedUris().get(1);
        // tag::deployments[]
        // A master watched by Sentinels: redis-sentinel://[password@]host:26379[,host:port...]#mymaster
        // (the password is the master's; rediss-sentinel:// for TLS). The client follows a failover.
        LockClient behindSentinels = RedisLocks.connect(sentinelUri);

        // A Cluster, from some seed nodes (e.g. redis://10.0.0.1:7000); the client reads the topology.
        LockClient onCluster = RedisLocks.connectCluster(seed1, seed2);

        // Each acquire and renewal acknowledged by at least one replica within 50 ms.
        Lease lease = behindSentinels.lock("order:123",
                LockOptions.watchdog(Duration.ofSeconds(10)).withReplicaAck(1, Duration.ofMillis(50)))
                .acquire(Duration.ofSeconds(5));
        // end::deployments[]
        try (behindSentinels; onCluster; lease; Lease other = onCluster.lock("order:123").acquire(Duration.ZERO)) {
            assertThat(lease.isValid()).isTrue();
            assertThat(other.isValid()).as("another deployment, another lock").isTrue();
        }
    }
}
