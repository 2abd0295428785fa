package dev.leasehold.etcd;

import dev.leasehold.Lease;
import dev.leasehold.LockUnavailableException;
import dev.leasehold.NodeFailure;
import dev.leasehold.launcher.EtcdCluster;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A cluster with authentication enabled (a root user, and a user whose role may read and write only
 * under the default key prefix): the right credentials work, wrong or missing ones and a prefix the
 * user may not touch are typed errors that say what to fix, never show the password, and leave no
 * thread behind.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EtcdAuthTest {

    private static final String PASSWORD = "s3cret-Pa55";
    @RegisterExtension
    static final TestServer<EtcdCluster> cluster = TestServer.perClass(() -> EtcdCluster.start(1));

    @BeforeAll
    static void startClusterWithAuth() throws Exception {
        // The user "app" may read and write under the default key prefix only.
        EtcdUsers.enable(cluster.get().endpoints(), "app", PASSWORD, EtcdLocks.DEFAULT_KEY_PREFIX, "leasehold0");
    }

    @Test
    void theRightUserLocksUnderItsPrefix() {
        try (EtcdLockClient locks = EtcdLocks.builder().endpoints(cluster.get().endpoints()).user("app").password(PASSWORD)
                .connect();
             Lease lease = locks.lock("auth:1").acquire(Duration.ofSeconds(5))) {
            assertThat(lease.token()).isPositive();
            assertThat(locks.lock("auth:1").tryAcquire(Duration.ZERO)).isEmpty();
        }
    }

    @Test
    void aWrongPasswordIsAnAuthenticationErrorThatNeverShowsThePassword() throws Exception {
        Threads before = Threads.snapshot();
        assertThatThrownBy(() -> EtcdLocks.builder().endpoints(cluster.get().endpoints()).user("app")
                .password("wrong-" + PASSWORD).connect())
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("rejected the user or its password")
                .hasMessageNotContaining(PASSWORD)
                .satisfies(e -> assertThat(((LockUnavailableException) e).failures())
                        .extracting(NodeFailure::kind).containsExactly(NodeFailure.Kind.AUTHENTICATION));
        before.assertNoNewThreadsWithin(Duration.ofSeconds(10));
    }

    @Test
    void noCredentialsOnAnAuthenticatedClusterSaySoToo() {
        assertThatThrownBy(() -> EtcdLocks.connect(cluster.get().endpoints()))
                .isInstanceOf(LockUnavailableException.class)
                .satisfies(e -> assertThat(((LockUnavailableException) e).failures())
                        .extracting(NodeFailure::kind).containsExactly(NodeFailure.Kind.AUTHENTICATION));
    }

    @Test
    void aPrefixTheUserMayNotTouchIsDenied() {
        assertThatThrownBy(() -> EtcdLocks.builder().endpoints(cluster.get().endpoints()).user("app").password(PASSWORD)
                .keyPrefix("elsewhere/").connect())
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("denied")
                .hasMessageContaining("grant-permission");
    }
}
