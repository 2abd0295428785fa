package dev.leasehold.etcd;

import dev.leasehold.DistributedLock;
import dev.leasehold.Lease;
import dev.leasehold.LockClient;
import dev.leasehold.LockOptions;
import dev.leasehold.launcher.EtcdCluster;
import dev.leasehold.testkit.contract.LateGrantContract;
import dev.leasehold.testkit.fault.FaultProxy;
import dev.leasehold.testkit.junit.Eventually;
import dev.leasehold.testkit.junit.TestServer;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * An acquisition whose {@code Txn} reaches the member while every reply is held (a paused link),
 * for longer than the lease's 1 s ttl. Nothing renews while the acquire waits, so the client sends
 * no keep-alive and its 1 s session lease expires on the member by itself, taking the key with it;
 * a rival is granted, and only then do the held answers arrive. The lease the late answer brings,
 * if any, is never valid while the rival holds: lost() completes, a fence guard refuses it,
 * lease-scoped work never runs on it, and its release leaves the rival alone.
 * The cases are {@link LateGrantContract}'s.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EtcdLateGrantTest extends LateGrantContract {

    @RegisterExtension
    static final TestServer<EtcdCluster> cluster = TestServer.perClass(() -> EtcdCluster.start(1));

    private FaultProxy proxy;
    private EtcdLockClient cut;
    private EtcdLockClient direct;
    private Client admin;

    /** A client behind a proxy that will hold its replies (its calls wait 15 s), one straight to the member, and an admin. */
    @BeforeEach
    void connect() {
        proxy = open(FaultProxy.start("127.0.0.1", cluster.get().clientPort(0)));
        cut = open(EtcdLocks.builder().endpoints("http://" + proxy.host() + ":" + proxy.port())
                .operationTimeout(Duration.ofSeconds(15)).connect());
        direct = open(EtcdLocks.connect(cluster.get().endpoints()));
        admin = open(Client.builder().endpoints(cluster.get().endpoints().split(",")).build());
    }

    @AfterEach
    void heal() {
        proxy.pass();
    }

    @Override
    protected LockClient probe() {
        return direct;
    }

    /**
     * Holds the replies and starts {@code acquiring} on a lock of {@code name} with a 1 s ttl, waits
     * until its key is on the member and 1.5 s more (past the attempt's local deadline) and until the
     * session lease has expired with the key, lets a rival take the lock, then lets the held answers
     * through.
     */
    @Override
    protected Lease grantedAfterItsTtlWhileARivalHolds(String name, Consumer<DistributedLock> acquiring) throws Exception {
        LockOptions options = LockOptions.watchdog(Duration.ofSeconds(1));
        // The connection is up and the session lease of that ttl granted, so the acquire sends its Txn at once.
        cut.lock(name + "-warm", options).acquire(Duration.ofSeconds(5)).release();
        proxy.holdReplies();
        acquiring.accept(cut.lock(name, options));
        Eventually.eventually(() -> !keys(name).isEmpty(), "the Txn reaches the member", Duration.ofSeconds(5));
        Thread.sleep(1_500);
        // Nothing renews while the acquire waits, so no keep-alive goes out: the session lease expires by itself.
        Eventually.eventually(() -> keys(name).isEmpty(), "the session lease expires on the member", Duration.ofSeconds(10));
        Lease rival = direct.lock(name).acquire(Duration.ofSeconds(5));
        proxy.releaseReplies();
        return rival;
    }

    /** The keys of lock {@code name}'s queue. */
    private List<KeyValue> keys(String name) {
        try {
            return admin.getKVClient().get(ByteSequence.from(EtcdLocks.DEFAULT_KEY_PREFIX + name + "/", StandardCharsets.UTF_8),
                    GetOption.builder().isPrefix(true).build()).get(5, TimeUnit.SECONDS).getKvs();
        } catch (Exception e) {
            throw new IllegalStateException("cannot read the keys of " + name, e);
        }
    }
}
