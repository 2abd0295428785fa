package dev.leasehold.redis;

import dev.leasehold.DistributedLock;
import dev.leasehold.Lease;
import dev.leasehold.ReleaseStatus;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Clients' own wake channels ({@code lib_wake.lua}, {@code ReleaseChannels}) under Redis 7 ACL users
 * whose channel permissions allow the lock's channel ({@code {name}:released}) but not the
 * channels beside it: such a user still waits and is woken on the lock's channel, and its release
 * still wakes the waiter of a client that does listen on a channel of its own; so does the release
 * of a user refused {@code PUBSUB}. With a re-check
 * period of a minute, a wake that does not arrive shows as a timeout.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WakeChannelsAclTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    @RegisterExtension
    static final TestServer<RedisServer> server = TestServer.perClass(() -> {
        RedisServer started = RedisServer.builder().aclUser("admin", "admin-pw").start();
        // The channels Leasehold published on before clients had channels of their own.
        started.command("ACL", "SETUSER", "narrow", "on", ">narrow-pw", "~*", "resetchannels", "&*:released",
                "+@all");
        // Every channel, but no PUBSUB (which the release scripts ask who listens with).
        started.command("ACL", "SETUSER", "nopubsub", "on", ">nopubsub-pw", "~*", "&*", "+@all", "-pubsub");
        return started;
    });
    private final List<RedisLockClient> clients = new ArrayList<>();

    @AfterEach
    void closeClients() {
        clients.forEach(RedisLockClient::close);
        clients.clear();
    }

    private RedisLockClient client(String user) {
        RedisLockClient client = RedisLocks.builder()
                .uri("redis://" + user + ":" + user + "-pw@127.0.0.1:" + server.get().port())
                .maxRecheck(Duration.ofMinutes(1)).connect();
        clients.add(client);
        return client;
    }

    @Test
    void aUserAllowedOnlyTheLocksChannelWaitsForTheMutex() throws Exception {
        waitsAndIsWoken("acl:mutex", RedisLockClient::lock, "narrow", "narrow");
    }

    @Test
    void aUserAllowedOnlyTheLocksChannelWaitsForTheFairLock() throws Exception {
        waitsAndIsWoken("acl:fair", RedisLockClient::fairLock, "narrow", "narrow");
    }

    @Test
    void aReleaseBySuchAUserWakesTheWaiterOfAClientWithAChannelOfItsOwn() throws Exception {
        waitsAndIsWoken("acl:mixed-mutex", RedisLockClient::lock, "narrow", "admin");
        waitsAndIsWoken("acl:mixed-fair", RedisLockClient::fairLock, "narrow", "admin");
    }

    @Test
    void aReleaseByAUserRefusedPubsubWakesTheWaiterOfAClientWithAChannelOfItsOwn() throws Exception {
        waitsAndIsWoken("acl:numsub-mutex", RedisLockClient::lock, "nopubsub", "admin");
        waitsAndIsWoken("acl:numsub-fair", RedisLockClient::fairLock, "nopubsub", "admin");
    }

    /** A client of {@code holderUser} holds, one of {@code waiterUser} waits; the release wakes it at once. */
    private void waitsAndIsWoken(String name, BiFunction<RedisLockClient, String, DistributedLock> kind,
                                 String holderUser, String waiterUser) throws Exception {
        Lease held = kind.apply(client(holderUser), name).acquire(Duration.ZERO);
        CompletableFuture<Lease> waiting = kind.apply(client(waiterUser), name).acquireAsync(WAIT)
                .toCompletableFuture();
        // Registered and listening: the lock's channel has its subscriber.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (ServerProbe.subscribers(server.get(), "{" + name + "}:released") == 0 && !waiting.isDone()) {
            assertThat(System.nanoTime()).as("the waiter's subscription").isLessThan(deadline);
            Thread.sleep(10);
        }
        Thread.sleep(100);
        assertThat(waiting).as("still waiting, not failed").isNotDone();

        assertThat(held.release()).isEqualTo(ReleaseStatus.RELEASED);

        Lease taken = waiting.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(taken.token()).isGreaterThan(held.token());
        taken.release();
    }
}
