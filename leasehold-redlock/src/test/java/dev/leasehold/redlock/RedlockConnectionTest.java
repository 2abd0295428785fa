package dev.leasehold.redlock;

import dev.leasehold.Lease;
import dev.leasehold.LockUnavailableException;
import dev.leasehold.NodeFailure;
import dev.leasehold.launcher.RedisBinary;
import dev.leasehold.launcher.TlsMaterial;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Starting with nodes down, credentials, TLS, bad settings, and nothing left behind after close. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedlockConnectionTest {

    @Test
    void aNodeDownAtStartIsToleratedAndJoinsOnceItIsBack() throws Exception {
        try (RedisNodes nodes = RedisNodes.start(3)) {
            nodes.get(2).kill();
            try (RedlockLockClient locks = RedlockLocks.connect(nodes.uris())) {
                try (Lease lease = locks.lock("late-node").acquire(Duration.ZERO)) {
                    assertThat(lease.isValid()).isTrue();
                    assertThat(nodes.holding("late-node")).isEqualTo(2);
                }
                nodes.get(2).restart();
                // Each call retries the connection of a node that never connected; no reconnect backoff
                // applies. The lease is returned once 2 of 3 granted, so the newcomer's grant may land just after.
                try (Lease lease = locks.lock("late-node").acquire(Duration.ZERO)) {
                    assertThat(lease.isValid()).isTrue();
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
                    while (nodes.holding("late-node") < 3 && System.nanoTime() < deadline) {
                        Thread.sleep(10);
                    }
                    assertThat(nodes.holding("late-node")).as("the node joined the quorum").isEqualTo(3);
                }
            }
        }
    }

    @Test
    void aMajorityDownAtStartFailsNamingEachNodeAndLeavesNoThread() throws Exception {
        Set<String> threadsBefore = clientThreads();
        try (RedisNodes nodes = RedisNodes.start(3)) {
            nodes.get(0).kill();
            nodes.get(1).kill();
            assertThatThrownBy(() -> RedlockLocks.connect(nodes.uris()))
                    .isInstanceOfSatisfying(LockUnavailableException.class, e -> {
                        assertThat(e.getMessage()).contains("1 of 3 nodes connected, 2 needed")
                                .contains(nodes.get(0).uri()).contains(nodes.get(1).uri());
                        assertThat(e.failures()).extracting(NodeFailure::kind).containsExactly(
                                NodeFailure.Kind.REFUSED, NodeFailure.Kind.REFUSED);
                    });
        }
        assertThat(clientThreadsAfterShutdown()).isSubsetOf(threadsBefore);
    }

    @RepeatedTest(value = 10, failureThreshold = 1)
    void aWrongPasswordOnOneNodeIsAnAuthenticationErrorThatNeverShowsThePassword() throws Exception {
        Set<String> threadsBefore = clientThreads();
        try (RedisNodes nodes = RedisNodes.start(3, builder -> builder.requirePass("s3cret-pw"))) {
            String[] uris = new String[3];
            for (int i = 0; i < 3; i++) {
                uris[i] = "redis://:" + (i == 1 ? "wrong-pw-123" : "s3cret-pw") + "@127.0.0.1:" + nodes.get(i).port();
            }
            assertThatThrownBy(() -> RedlockLocks.connect(uris))
                    .isInstanceOfSatisfying(LockUnavailableException.class, e -> {
                        assertThat(e.getMessage()).contains("credentials").contains(nodes.get(1).uri())
                                .doesNotContain("wrong-pw-123").doesNotContain("s3cret-pw");
                        assertThat(e.failures()).singleElement()
                                .satisfies(f -> assertThat(f.kind()).isEqualTo(NodeFailure.Kind.AUTHENTICATION));
                    });
            uris[1] = uris[0].replace(Integer.toString(nodes.get(0).port()), Integer.toString(nodes.get(1).port()));
            try (RedlockLockClient locks = RedlockLocks.connect(uris);
                 Lease lease = locks.lock("auth").acquire(Duration.ZERO)) {
                assertThat(lease.isValid()).isTrue();
                assertThat(locks.describe()).doesNotContain("s3cret").startsWith("redlock[redis://127.0.0.1:");
                assertThat(locks.nodeCount()).isEqualTo(3);
                assertThat(locks.quorum()).isEqualTo(2);
            }
        }
        assertThat(clientThreadsAfterShutdown()).isSubsetOf(threadsBefore);
    }

    @Test
    void tlsNodesWorkWithATrustedPrivateCa(@TempDir Path dir) {
        // A hard requirement, not a skip: CI installs Debian's redis-server, built with TLS, and
        // the embedded binary supports it too; a build without TLS must fail here, loudly.
        assertThat(RedisBinary.locate().supportsTls())
                .as("redis-server at %s must be built with TLS; install Debian's redis-server or set "
                        + "LEASEHOLD_REDIS_SERVER", RedisBinary.locate().path()).isTrue();
        TlsMaterial tls = TlsMaterial.generate(dir);
        try (RedisNodes nodes = RedisNodes.start(3, builder -> builder.tls(tls))) {
            try (RedlockLockClient locks = RedlockLocks.builder().uris(nodes.uris()).trustedCertificate(tls.caCert()).connect();
                 Lease lease = locks.lock("tls").acquire(Duration.ZERO)) {
                assertThat(locks.describe()).startsWith("redlock[rediss://");
                assertThat(lease.isValid()).isTrue();
            }
            assertThatThrownBy(() -> RedlockLocks.builder().uris(nodes.uris()).operationTimeout(Duration.ofSeconds(2)).connect())
                    .as("without trusting the CA").isInstanceOf(LockUnavailableException.class);
        }
    }

    @Test
    void badSettingsAreRejectedWithTheArgumentAndTheLimit() {
        String a = "redis://127.0.0.1:7001";
        String b = "redis://127.0.0.1:7002";
        String c = "redis://127.0.0.1:7003";
        assertThatThrownBy(() -> RedlockLocks.connect(a, b)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 3").hasMessageContaining("RedisLocks");
        assertThatThrownBy(() -> RedlockLocks.connect((String[]) null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RedlockLocks.connect(a, b, a)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("listed twice");
        assertThatThrownBy(() -> RedlockLocks.connect(a, b, "http://user:topsecret@host")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("redis://").hasMessageNotContaining("topsecret");
        assertThatThrownBy(() -> RedlockLocks.builder().nodeTimeout(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("nodeTimeout").hasMessageContaining("at least");
        assertThatThrownBy(() -> RedlockLocks.builder().uris(a, b, c).operationTimeout(Duration.ofSeconds(3))
                .nodeTimeout(Duration.ofSeconds(2)).connect()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("nodeTimeout").hasMessageContaining("operationTimeout");
        assertThatThrownBy(() -> RedlockLocks.builder().retryCount(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("retryCount");
        assertThatThrownBy(() -> RedlockLocks.builder().retryDelay(Duration.ofMillis(-1), Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("retryDelay").hasMessageContaining("negative");
        assertThatThrownBy(() -> RedlockLocks.builder().retryDelay(Duration.ZERO, Duration.ofMinutes(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("retryJitter").hasMessageContaining("at most");
        assertThatThrownBy(() -> RedlockLocks.builder().trustedCertificate(Path.of("/no/such.pem")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("trustedCertificate");
        assertThatThrownBy(() -> RedlockLocks.builder().connect()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("URIs");
    }

    /** Live threads started by Lettuce/Netty or by Leasehold. */
    private static Set<String> clientThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(name -> name.startsWith("lettuce-") || name.startsWith("leasehold-renewal"))
                .collect(Collectors.toSet());
    }

    /** Waits up to 5 s for the client threads to be gone (Netty ends its loops asynchronously). */
    private static Set<String> clientThreadsAfterShutdown() throws InterruptedException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        Set<String> threads = clientThreads();
        while (!threads.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(50);
            threads = clientThreads();
        }
        return threads;
    }
}
