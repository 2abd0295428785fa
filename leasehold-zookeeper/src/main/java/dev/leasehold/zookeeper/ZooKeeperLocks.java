package dev.leasehold.zookeeper;

import dev.leasehold.LockUnavailableException;
import dev.leasehold.NodeFailure;
import dev.leasehold.engine.EngineBuilder;
import dev.leasehold.engine.LeaseEngine;
import dev.leasehold.engine.LeaseEvents;
import dev.leasehold.spi.Args;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.retry.BoundedExponentialBackoffRetry;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Entry points of the ZooKeeper backend.
 *
 * <pre>{@code
 * try (ZooKeeperLockClient locks = ZooKeeperLocks.connect("zk1:2181,zk2:2181,zk3:2181")) {
 *     try (Lease lease = locks.lock("order:123").acquire(Duration.ofSeconds(5))) {
 *         store.write(change, lease.token());
 *     }
 * }
 * }</pre>
 */
public final class ZooKeeperLocks {

    /** Session timeout requested when none is given; the servers clamp it to [2, 20] ticks. */
    public static final Duration DEFAULT_SESSION_TIMEOUT = Duration.ofSeconds(15);
    /** How long {@link Builder#build()} waits for the first connection when none is given. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);

    private ZooKeeperLocks() {
    }

    /**
     * A client of the ensemble at {@code connectString} ({@code host:port[,host:port...][/chroot]}),
     * with the defaults of {@link #builder()}.
     *
     * @throws IllegalArgumentException if the connect string is null or blank, or its chroot does
     *                                  not exist on the ensemble
     * @throws LockUnavailableException if no server answered within the connect timeout
     */
    public static ZooKeeperLockClient connect(String connectString) {
        return builder().connectString(connectString).build();
    }

    /**
     * A client over a started Curator framework the caller owns: it shares its session, and
     * {@link ZooKeeperLockClient#close()} leaves the framework open. Its namespace, if any, applies
     * to the lock nodes.
     *
     * @throws IllegalArgumentException if curator is null or not started
     */
    public static ZooKeeperLockClient using(CuratorFramework curator) {
        return using(curator, LeaseEvents.NONE);
    }

    /**
     * {@link #using(CuratorFramework)}, reporting the engine's events to {@code events}: for meters,
     * {@code MicrometerLeaseEvents.of(registry)} (see {@link Builder#meterRegistry}).
     *
     * @throws IllegalArgumentException if curator is null or not started, or events is null
     */
    public static ZooKeeperLockClient using(CuratorFramework curator, LeaseEvents events) {
        LeaseEvents.require(events);
        Args.notNull("curator", curator);
        if (curator.getState() != CuratorFrameworkState.STARTED) {
            throw new IllegalArgumentException("the Curator framework is " + curator.getState()
                    + "; call start() before handing it to ZooKeeperLocks.using");
        }
        String ensemble = "zookeeper://" + curator.getZookeeperClient().getCurrentConnectionString();
        int negotiated = curator.getZookeeperClient().getLastNegotiatedSessionTimeoutMs();
        LockPaths.ensureRoot(curator, ensemble, LeaseEngine.Settings.DEFAULT_OPERATION_TIMEOUT);
        LeaseEngine.Settings settings = LeaseEngine.Settings.defaults().withEvents(events);
        return new ZooKeeperLockClient(new ZooKeeperBackend(curator, false, ensemble,
                negotiated > 0 ? Duration.ofMillis(negotiated) : DEFAULT_SESSION_TIMEOUT,
                settings.operationTimeout(), null, false), settings);
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Settings of a client that creates its own Curator framework; each setter validates its
     * argument at once. The engine's settings come from {@link EngineBuilder}.
     */
    public static final class Builder extends EngineBuilder<Builder> {

        private String connectString;
        private String chroot = "";
        private Duration sessionTimeout = DEFAULT_SESSION_TIMEOUT;
        private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
        private byte[] digest;
        private DigestAcls acls;
        private boolean localRenewals;

        private Builder() {
        }

        @Override
        protected Builder self() {
            return this;
        }

        /**
         * {@code host:port[,host:port...]}, optionally followed by a chroot such as {@code /app}. It
         * is used as given: Curator's ensemble tracker, which would replace it with the addresses
         * the servers advertise, is off.
         */
        public Builder connectString(String connectString) {
            if (connectString == null || connectString.isBlank()) {
                throw new IllegalArgumentException("connectString must not be null or blank; give host:port[,host:port...]");
            }
            this.connectString = connectString.strip();
            return this;
        }

        /**
         * A path every lock node lives under, which must exist on the ensemble (as ZooKeeper's own
         * chroot); the same as appending it to the connect string.
         *
         * @throws IllegalArgumentException if it does not start with {@code /}, ends with one, or
         *                                  has an empty segment
         */
        public Builder chroot(String chroot) {
            if (chroot == null || !chroot.startsWith("/") || chroot.length() < 2 || chroot.endsWith("/")
                    || chroot.contains("//")) {
                throw new IllegalArgumentException("chroot must be an absolute path such as /app (no trailing"
                        + " slash, no empty segment), got " + chroot);
            }
            this.chroot = chroot;
            return this;
        }

        /**
         * The session timeout to request (default 15 s; the servers clamp it to their
         * [minSessionTimeout, maxSessionTimeout]): a client that dies frees its locks this long
         * after the ensemble last heard from it. A lease's local deadline never outlasts what the
         * quorum still grants the session (between a third of it and all of it after the last
         * renewal the leader confirmed, see {@link ZooKeeperLockClient}), so with a ttl longer than
         * that the watchdog renews more often. Safety assumes the session timeout is at least three
         * tickTimes of the ensemble unless its {@code conf} four-letter word is allowed, and
         * {@code syncLimit × tickTime} well below the session timeout keeps a holder behind a
         * partitioned follower able to move to a healthy server in time (a WARN at build time
         * otherwise, when {@code conf} tells).
         */
        public Builder sessionTimeout(Duration sessionTimeout) {
            this.sessionTimeout = Args.within("sessionTimeout", sessionTimeout, Duration.ofMillis(500), Duration.ofMinutes(10));
            return this;
        }

        /**
         * Authenticates the session with ZooKeeper's {@code digest} scheme as {@code user}, and
         * creates every node (the lock directories and each acquisition's node) with the ACL
         * {@code auth} / all permissions: only sessions authenticated as the same user can read,
         * queue on, or delete them. Every client sharing locks must use the same user. A session
         * without it (or with a wrong password, which ZooKeeper does not refuse at login but never
         * matches) gets {@link LockUnavailableException} with {@code AUTHENTICATION} at its first
         * acquire. Nodes that already exist keep their ACLs; an acquire refuses (with
         * {@code AUTHENTICATION}, leaving no node) a lock directory whose ACL grants anything to
         * another identity, e.g. one an anonymous session created first, since ZooKeeper would let
         * that identity delete the holder's node. The password is never logged.
         *
         * @throws IllegalArgumentException if the user is null, empty or holds {@code :}, or the
         *                                  password is null or empty
         */
        public Builder digest(String user, String password) {
            if (user == null || user.isEmpty() || user.indexOf(':') >= 0) {
                throw new IllegalArgumentException("digest user must be a non-empty name without ':'");
            }
            if (password == null || password.isEmpty()) {
                throw new IllegalArgumentException("digest password must not be null or empty");
            }
            this.digest = (user + ":" + password).getBytes(StandardCharsets.UTF_8);
            this.acls = new DigestAcls(user, password);
            return this;
        }

        /**
         * Renewals that only read the server this client talks to, and a local deadline from the ttl
         * alone: the defect of issue 19, item 1, kept only so that the fault suite can prove its
         * history checker catches the overlap it causes. Never use it.
         */
        Builder unsafeLocalRenewals() {
            this.localRenewals = true;
            return this;
        }

        /** How long {@link #build()} waits for a first connection (default 10 s). */
        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = Args.within("connectTimeout", connectTimeout, Duration.ofMillis(100), Duration.ofMinutes(5));
            return this;
        }

        /**
         * Connects, waiting up to the connect timeout for a first session, and checks that the
         * chroot exists. On failure nothing is left running.
         *
         * @throws IllegalArgumentException if no connect string was given, a setting is out of
         *                                  range, or the chroot does not exist on the ensemble
         * @throws LockUnavailableException if no server answered within the connect timeout
         */
        public ZooKeeperLockClient build() {
            if (connectString == null) {
                throw new IllegalArgumentException("connectString is required; give host:port[,host:port...]");
            }
            LeaseEngine.Settings settings = engineSettings();
            int slash = connectString.indexOf('/');
            if (slash >= 0 && !chroot.isEmpty()) {
                throw new IllegalArgumentException("the connect string already has a chroot ("
                        + connectString.substring(slash) + "); give it once");
            }
            String full = connectString + chroot;
            String ensemble = "zookeeper://" + full;
            CuratorFramework curator;
            try {
                CuratorFrameworkFactory.Builder framework = CuratorFrameworkFactory.builder();
                if (digest != null) {
                    framework.authorization("digest", digest).aclProvider(acls);
                }
                curator = framework
                        .connectString(full)
                        .sessionTimeoutMs(Math.toIntExact(sessionTimeout.toMillis()))
                        .connectionTimeoutMs(Math.toIntExact(Math.min(connectTimeout.toMillis(), sessionTimeout.toMillis())))
                        .retryPolicy(new BoundedExponentialBackoffRetry(50, 1_000, 4))
                        // The connect string is used as given: the addresses the servers advertise
                        // must not replace it (they may be unreachable from here, or bypass a proxy).
                        .ensembleTracker(false)
                        .build();
            } catch (IllegalArgumentException badConnectString) {
                throw new IllegalArgumentException("connect string '" + full + "' is not host:port[,host:port...][/chroot]: "
                        + badConnectString.getMessage(), badConnectString);
            }
            try {
                curator.start();
                if (!curator.blockUntilConnected(Math.toIntExact(connectTimeout.toMillis()), TimeUnit.MILLISECONDS)) {
                    throw new LockUnavailableException("No ZooKeeper server of " + ensemble + " answered within "
                            + connectTimeout.toMillis() + " ms; check the connect string and that a majority of the"
                            + " ensemble is running and reachable",
                            new NodeFailure(ensemble, NodeFailure.Kind.TIMED_OUT, null));
                }
                checkChroot(curator, full, ensemble);
                LockPaths.ensureRoot(curator, ensemble, operationTimeout());
            } catch (InterruptedException interrupted) {
                curator.close();
                Thread.currentThread().interrupt();
                throw new LockUnavailableException("Interrupted while connecting to " + ensemble,
                        new NodeFailure(ensemble, NodeFailure.Kind.REFUSED, interrupted));
            } catch (RuntimeException failed) {
                curator.close();
                throw failed;
            }
            return new ZooKeeperLockClient(new ZooKeeperBackend(curator, true, ensemble, sessionTimeout,
                    settings.operationTimeout(), acls, localRenewals), settings);
        }

        private static void checkChroot(CuratorFramework curator, String full, String ensemble) {
            int slash = full.indexOf('/');
            if (slash < 0) {
                return;
            }
            boolean exists;
            try {
                // Under a chroot, "/" is the chroot itself.
                exists = curator.checkExists().forPath("/") != null;
            } catch (Exception error) {
                throw ZooKeeperErrors.of(ensemble, "the check of the chroot", error);
            }
            if (!exists) {
                throw new IllegalArgumentException("the chroot " + full.substring(slash) + " does not exist on "
                        + ensemble + "; create it first (zkCli.sh: create " + full.substring(slash)
                        + ") or fix the connect string");
            }
        }
    }
}
