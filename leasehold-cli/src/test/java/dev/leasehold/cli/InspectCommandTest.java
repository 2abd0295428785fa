package dev.leasehold.cli;

import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import dev.leasehold.redis.RedisLockClient;
import dev.leasehold.redis.RedisLocks;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code leasehold inspect} on a lock this test holds through the library, then on a free one. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class InspectCommandTest {

    private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(30);
    private static final Pattern TTL_MS = Pattern.compile("\"ttlMs\":(\\d+)");

    @RegisterExtension
    static final TestServer<RedisServer> server = TestServer.perClass(() -> RedisServer.builder().start());

    @TempDir
    Path dir;

    @Test
    void showsTheRedactedHolderTheTtlAndTheFenceAsJsonAndText() {
        try (RedisLockClient client = RedisLocks.connect(server.get().uri());
             Lease lease = client.lock("order:7", LockOptions.watchdog(Duration.ofSeconds(20))).acquire(Duration.ZERO)) {
            String holder = (String) server.get().command("GET", "order:7");

            CliProcess json = inspect("order:7", "--json");
            assertThat(json.awaitExit(EXIT_TIMEOUT)).isZero();
            assertThat(json.stdout()).startsWith("{\"name\":\"order:7\",\"held\":true,\"holder\":\"" + holder.substring(0, 6))
                    .contains("\"fence\":" + lease.token() + ",\"waiters\":0}")
                    .doesNotContain(holder);
            Matcher ttl = TTL_MS.matcher(json.stdout());
            assertThat(ttl.find()).isTrue();
            assertThat(Long.parseLong(ttl.group(1))).isBetween(1L, 20_000L);

            CliProcess text = inspect("order:7");
            assertThat(text.awaitExit(EXIT_TIMEOUT)).isZero();
            assertThat(text.stdout()).contains("lock     order:7").contains("holder   " + holder.substring(0, 6))
                    .contains("fence    " + lease.token()).contains("waiters  0").doesNotContain(holder);
        }

        CliProcess free = inspect("order:7", "--json");
        assertThat(free.awaitExit(EXIT_TIMEOUT)).isZero();
        assertThat(free.stdout()).contains("\"held\":false,\"holder\":null,\"ttlMs\":null");
    }

    private CliProcess inspect(String... args) {
        String[] all = new String[args.length + 1];
        all[0] = "inspect";
        System.arraycopy(args, 0, all, 1, args.length);
        return CliProcess.start(dir, Map.of(RedisOption.ENV_VAR, server.get().uri()), all);
    }
}
