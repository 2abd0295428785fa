package dev.leasehold.spring;

import dev.leasehold.Lease;
import dev.leasehold.LockKind;
import dev.leasehold.launcher.FreePorts;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Each configuration that cannot work fails the startup, naming the property or the @Locked attribute. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BadConfigurationTest {

    @RegisterExtension
    static final TestServer<RedisServer> server = TestServer.perClass(() -> RedisServer.builder().aclUser("app", "right-password").start());

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LeaseholdAutoConfiguration.class));

    /** A typo started the application in silence, with the default in place of the value meant. */
    @Test
    void anUnknownPropertyIsNamedWithTheClosestKnownOne() {
        runner.withPropertyValues("leasehold.redis.operation-timout=5s").run(context -> assertThat(failure(context))
                .returns("leasehold.redis.operation-timout", LeaseholdConfigurationException::setting)
                .hasMessageContaining("did you mean leasehold.redis.operation-timeout?"));
        runner.withPropertyValues("leasehold.locked.defaultWiat=5s").run(context -> assertThat(failure(context))
                .hasMessageContaining("leasehold.locked.defaultwiat").hasMessageContaining("leasehold.locked.default-wait?"));
        runner.withPropertyValues("leasehold.observations.lock-name=true").run(context -> assertThat(failure(context))
                .hasMessageContaining("did you mean leasehold.observations.lock-names?"));
        runner.withPropertyValues("leasehold.redis.connect-on-start=false").run(context -> assertThat(failure(context))
                .hasMessageContaining("did you mean leasehold.redis.connect-on-startup?"));
    }

    @Test
    void everyDocumentedPropertyIsKnown() {
        assertThat(UnknownProperties.known()).contains("leasehold.redis.uri", "leasehold.redis.operation-timeout",
                "leasehold.redis.key-prefix", "leasehold.redis.trusted-certificate", "leasehold.locked.default-ttl",
                "leasehold.redis.connect-on-startup", "leasehold.observations.enabled", "leasehold.observations.lock-names");
        runner.withPropertyValues("leasehold.redis.uri=redis://app:right-password@" + server.get().host() + ":" + server.get().port(),
                "leasehold.redis.keyPrefix=app:",
                "leasehold.locked.default-wait=2s").run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void noServerConfigured() {
        runner.run(context -> assertThat(failure(context))
                .returns("leasehold.redis.uri", LeaseholdConfigurationException::setting)
                .hasMessageContaining("no Redis server is configured").hasMessageContaining("spring.data.redis.host"));
    }

    @Test
    void anUnreachableServerAtStartup() {
        int port = FreePorts.find();
        runner.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + port,
                "spring.data.redis.timeout=1s").run(context -> assertThat(failure(context))
                .returns("spring.data.redis.host", LeaseholdConfigurationException::setting)
                .hasMessageContaining("could not connect").hasMessageContaining("127.0.0.1:" + port));
        runner.withPropertyValues("leasehold.redis.uri=redis://127.0.0.1:" + port).run(context ->
                assertThat(failure(context)).hasMessageStartingWith("leasehold.redis.uri: "));
    }

    @Test
    void aRefusedPasswordIsNamedButNeverShown() {
        runner.withPropertyValues("spring.data.redis.host=" + server.get().host(), "spring.data.redis.port=" + server.get().port(),
                "spring.data.redis.username=app", "spring.data.redis.password=wrong-password").run(context -> {
            LeaseholdConfigurationException failure = failure(context);
            assertThat(failure).returns("spring.data.redis.host", LeaseholdConfigurationException::setting);
            assertThat(context.getStartupFailure()).satisfies(all -> assertThat(stackText(all)).doesNotContain("wrong-password"));
        });
        runner.withPropertyValues("spring.data.redis.url=redis://app:wrong-password@" + server.get().host() + ":" + server.get().port())
                .run(context -> assertThat(stackText(context.getStartupFailure())).doesNotContain("wrong-password")
                        .contains("spring.data.redis.url"));
    }

    @Test
    void malformedOrOutOfRangeProperties() {
        runner.withPropertyValues("leasehold.redis.uri=http://localhost:6379").run(context -> assertThat(failure(context))
                .returns("leasehold.redis.uri", LeaseholdConfigurationException::setting)
                .hasMessageContaining("redis://"));
        runner.withPropertyValues("spring.data.redis.url=localhost:6379").run(context -> assertThat(failure(context))
                .returns("spring.data.redis.url", LeaseholdConfigurationException::setting));
        runner.withPropertyValues("leasehold.redis.uri=" + server.get().uri(), "leasehold.redis.operation-timeout=10m")
                .run(context -> assertThat(failure(context))
                        .returns("leasehold.redis.operation-timeout", LeaseholdConfigurationException::setting)
                        .hasMessageContaining("PT5M"));
        runner.withPropertyValues("spring.data.redis.host=localhost", "spring.data.redis.port=70000")
                .run(context -> assertThat(failure(context))
                        .returns("spring.data.redis.port", LeaseholdConfigurationException::setting));
        runner.withPropertyValues("leasehold.redis.uri=" + server.get().uri(), "leasehold.redis.key-prefix={x}")
                .run(context -> assertThat(failure(context))
                        .returns("leasehold.redis.key-prefix", LeaseholdConfigurationException::setting));
    }

    @Test
    void aMalformedDurationPropertyIsNamedByTheBinder() {
        runner.withPropertyValues("leasehold.redis.uri=" + server.get().uri(), "leasehold.redis.operation-timeout=fast")
                .run(context -> assertThat(context.getStartupFailure()).rootCause().isNotNull()
                        .satisfies(root -> assertThat(stackText(context.getStartupFailure()))
                                .contains("leasehold.redis.operation-timeout")));
        runner.withPropertyValues("spring.data.redis.host=localhost", "spring.data.redis.timeout=soon")
                .run(context -> assertThat(findCause(context.getStartupFailure(), BindException.class))
                        .hasMessageContaining("spring.data.redis.timeout"));
        runner.withPropertyValues("leasehold.locked.default-wait=a while").run(context ->
                assertThat(findCause(context.getStartupFailure(), BindException.class))
                        .hasMessageContaining("leasehold.locked.default-wait"));
    }

    @Test
    void aSentinelGroupWithoutItsMasterOrWithMalformedNodes() {
        runner.withPropertyValues("spring.data.redis.sentinel.nodes=127.0.0.1:26379", "spring.data.redis.host=localhost")
                .run(context -> assertThat(failure(context))
                        .returns("spring.data.redis.sentinel.master", LeaseholdConfigurationException::setting)
                        .hasMessageContaining("mymaster"));
        runner.withPropertyValues("spring.data.redis.sentinel.master=mymaster").run(context -> assertThat(failure(context))
                .returns("spring.data.redis.sentinel.nodes", LeaseholdConfigurationException::setting)
                .hasMessageContaining("names no node"));
        for (String nodes : new String[] {"127.0.0.1", "127.0.0.1:26379,localhost:port", ":26379", "127.0.0.1:0",
                "127.0.0.1:65536"}) {
            runner.withPropertyValues("spring.data.redis.sentinel.master=mymaster", "spring.data.redis.sentinel.nodes=" + nodes)
                    .run(context -> assertThat(failure(context)).as(nodes)
                            .returns("spring.data.redis.sentinel.nodes", LeaseholdConfigurationException::setting)
                            .hasMessageContaining("is not host:port"));
        }
        runner.withPropertyValues("spring.data.redis.sentinel.master=mymaster",
                "spring.data.redis.sentinel.nodes=127.0.0.1:26379", "spring.data.redis.sentinel.username=watcher")
                .run(context -> assertThat(failure(context))
                        .returns("spring.data.redis.sentinel.password", LeaseholdConfigurationException::setting));
    }

    @Test
    void aClusterWithMalformedNodesOrADatabase() {
        runner.withPropertyValues("spring.data.redis.cluster.nodes=127.0.0.1:7000,127.0.0.1")
                .run(context -> assertThat(failure(context))
                        .returns("spring.data.redis.cluster.nodes", LeaseholdConfigurationException::setting)
                        .hasMessageContaining("'127.0.0.1' is not host:port"));
        runner.withPropertyValues("spring.data.redis.cluster.nodes=127.0.0.1:7000", "spring.data.redis.database=2")
                .run(context -> assertThat(failure(context))
                        .returns("spring.data.redis.database", LeaseholdConfigurationException::setting)
                        .hasMessageContaining("only database 0"));
        runner.withPropertyValues("spring.data.redis.masterreplica.nodes=127.0.0.1:6379,127.0.0.1:6380")
                .run(context -> assertThat(failure(context))
                        .returns("spring.data.redis.masterreplica.nodes", LeaseholdConfigurationException::setting));
    }

    @Test
    void anSslBundleWithoutATrustedCertificate() {
        runner.withPropertyValues("spring.data.redis.host=localhost", "spring.data.redis.ssl.bundle=corporate")
                .run(context -> assertThat(failure(context))
                        .returns("spring.data.redis.ssl.bundle", LeaseholdConfigurationException::setting)
                        .hasMessageContaining("leasehold.redis.trusted-certificate"));
    }

    @Test
    void aMalformedLockedAttributeFailsTheBeanNamingMethodAndAttribute() {
        ApplicationContextRunner live = runner.withPropertyValues(
                "leasehold.redis.uri=redis://app:right-password@" + server.get().host() + ":" + server.get().port());
        live.withBean(BadWait.class).run(context -> assertThat(failure(context))
                .returns("@Locked(waitFor) on BadWait.run(long)", LeaseholdConfigurationException::setting)
                .hasMessageContaining("\"5 seconds\" is not a duration"));
        live.withBean(NegativeWait.class).run(context -> assertThat(failure(context))
                .returns("@Locked(waitFor) on NegativeWait.run()", LeaseholdConfigurationException::setting));
        live.withBean(BadTtl.class).run(context -> assertThat(failure(context))
                .returns("@Locked(ttl) on BadTtl.run()", LeaseholdConfigurationException::setting)
                .hasMessageContaining("ttl"));
        live.withBean(BadSpel.class).run(context -> assertThat(failure(context))
                .returns("@Locked(name) on BadSpel.run(long)", LeaseholdConfigurationException::setting)
                .hasMessageContaining("not a valid SpEL expression"));
        live.withBean(UnknownVariable.class).run(context -> assertThat(failure(context))
                .returns("@Locked(name) on UnknownVariable.run(long)", LeaseholdConfigurationException::setting)
                .hasMessageContaining("#orderId").hasMessageContaining("id"));
        live.withBean(EmptyName.class).run(context -> assertThat(failure(context))
                .returns("@Locked(name) on EmptyName.run()", LeaseholdConfigurationException::setting));
        live.withBean(TwoLeases.class).run(context -> assertThat(failure(context))
                .returns("@Locked on TwoLeases.run(Lease, Lease)", LeaseholdConfigurationException::setting));
        live.withBean(FinalMethod.class).run(context -> assertThat(failure(context))
                .returns("@Locked on FinalMethod.run()", LeaseholdConfigurationException::setting)
                .hasMessageContaining("final method cannot be intercepted"));
        live.withBean(AsyncResult.class).run(context -> assertThat(failure(context))
                .returns("@Locked on AsyncResult.run()", LeaseholdConfigurationException::setting)
                .hasMessageContaining("CompletableFuture"));
        live.withBean(Reactive.class).run(context -> assertThat(failure(context))
                .returns("@Locked on Reactive.run()", LeaseholdConfigurationException::setting)
                .hasMessageContaining("Mono"));
        live.withBean(UnresolvedPlaceholder.class).run(context -> assertThat(failure(context))
                .returns("@Locked(waitFor) on UnresolvedPlaceholder.run()", LeaseholdConfigurationException::setting)
                .hasMessageContaining("orders.lock-wait"));
    }

    @Test
    void aScheduledJobAttributeThatCannotWorkFailsTheBeanNamingMethodAndAttribute() {
        ApplicationContextRunner live = runner.withPropertyValues(
                "leasehold.redis.uri=redis://app:right-password@" + server.get().host() + ":" + server.get().port());
        live.withBean(TtlAndLeaseTime.class).run(context -> assertThat(failure(context))
                .returns("@Locked(leaseTime) on TtlAndLeaseTime.run()", LeaseholdConfigurationException::setting)
                .hasMessageContaining("exclude each other"));
        live.withBean(MaxHoldWithLeaseTime.class).run(context -> assertThat(failure(context))
                .returns("@Locked(maxHold) on MaxHoldWithLeaseTime.run()", LeaseholdConfigurationException::setting)
                .hasMessageContaining("never renewed"));
        live.withBean(MaxHoldBelowTtl.class).run(context -> assertThat(failure(context))
                .returns("@Locked(maxHold) on MaxHoldBelowTtl.run()", LeaseholdConfigurationException::setting)
                .hasMessageContaining("maxHold"));
        live.withBean(BadLeaseTime.class).run(context -> assertThat(failure(context))
                .returns("@Locked(leaseTime) on BadLeaseTime.run()", LeaseholdConfigurationException::setting)
                .hasMessageContaining("\"ten seconds\" is not a duration"));
        live.withBean(LeaseTimeTooShort.class).run(context -> assertThat(failure(context))
                .returns("@Locked(leaseTime) on LeaseTimeTooShort.run()", LeaseholdConfigurationException::setting)
                .hasMessageContaining("leaseTime"));
        live.withBean(BadHoldAtLeast.class).run(context -> assertThat(failure(context))
                .returns("@Locked(holdAtLeast) on BadHoldAtLeast.run()", LeaseholdConfigurationException::setting)
                .hasMessageContaining("\"1 minute\" is not a duration"));
        live.withBean(HoldAtLeastPastLeaseTime.class).run(context -> assertThat(failure(context))
                .returns("@Locked(holdAtLeast) on HoldAtLeastPastLeaseTime.run()", LeaseholdConfigurationException::setting)
                .hasMessageContaining("leaseTime"));
        live.withBean(SkipPrimitive.class).run(context -> assertThat(failure(context))
                .returns("@Locked(ifLocked) on SkipPrimitive.count()", LeaseholdConfigurationException::setting)
                .hasMessageContaining("long has no value").hasMessageContaining("Optional"));
        live.withBean(SkipVoidAndWrapper.class).run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void aKindAndPermitsThatDoNotFitTogetherFailTheBeanNamingMethodAndAttribute() {
        ApplicationContextRunner live = runner.withPropertyValues(
                "leasehold.redis.uri=redis://app:right-password@" + server.get().host() + ":" + server.get().port());
        live.withBean(PermitsWithoutCount.class).run(context -> assertThat(failure(context))
                .returns("@Locked(kind) on PermitsWithoutCount.run()", LeaseholdConfigurationException::setting)
                .hasMessageContaining("add permits = 3"));
        live.withBean(CountWithoutPermits.class).run(context -> assertThat(failure(context))
                .returns("@Locked(kind) on CountWithoutPermits.run()", LeaseholdConfigurationException::setting)
                .hasMessageContaining("permits = 2 is for a semaphore only"));
        live.withBean(TooManyPermits.class).run(context -> assertThat(failure(context))
                .returns("@Locked(kind) on TooManyPermits.run()", LeaseholdConfigurationException::setting)
                .hasMessageContaining("permits"));
        live.withBean(KindInterface.class).run(context -> assertThat(failure(context))
                .returns("@Locked(kind) on KindInterface.run()", LeaseholdConfigurationException::setting)
                .hasMessageContaining("LockKind.class names no lock kind"));
    }

    private static LeaseholdConfigurationException failure(AssertableApplicationContext context) {
        assertThat(context).hasFailed();
        return findCause(context.getStartupFailure(), LeaseholdConfigurationException.class);
    }

    private static <T extends Throwable> T findCause(Throwable failure, Class<T> type) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (type.isInstance(cause)) {
                return type.cast(cause);
            }
        }
        throw new AssertionError("no " + type.getSimpleName() + " in " + stackText(failure));
    }

    private static String stackText(Throwable failure) {
        java.io.StringWriter text = new java.io.StringWriter();
        failure.printStackTrace(new java.io.PrintWriter(text));
        return text.toString();
    }

    public static class BadWait {
        @Locked(name = "'x:' + #id", waitFor = "5 seconds")
        public void run(long id) {
        }
    }

    public static class NegativeWait {
        @Locked(name = "'x'", waitFor = "-1s")
        public void run() {
        }
    }

    public static class BadTtl {
        @Locked(name = "'x'", ttl = "1ms")
        public void run() {
        }
    }

    public static class BadSpel {
        @Locked(name = "'order:' + ", waitFor = "1s")
        public void run(long id) {
        }
    }

    public static class UnknownVariable {
        @Locked(name = "'order:' + #orderId")
        public void run(long id) {
        }
    }

    public static class EmptyName {
        @Locked(name = " ")
        public void run() {
        }
    }

    public static class TwoLeases {
        @Locked(name = "'x'")
        public void run(Lease first, Lease second) {
        }
    }

    public static class FinalMethod {
        @Locked(name = "'x'")
        public final void run() {
        }
    }

    public static class AsyncResult {
        @Locked(name = "'x'")
        public java.util.concurrent.CompletableFuture<String> run() {
            return java.util.concurrent.CompletableFuture.completedFuture("done");
        }
    }

    public static class Reactive {
        @Locked(name = "'x'")
        public reactor.core.publisher.Mono<String> run() {
            return reactor.core.publisher.Mono.just("done");
        }
    }

    public static class TtlAndLeaseTime {
        @Locked(name = "'x'", ttl = "10s", leaseTime = "10s")
        public void run() {
        }
    }

    public static class MaxHoldWithLeaseTime {
        @Locked(name = "'x'", leaseTime = "10s", maxHold = "1m")
        public void run() {
        }
    }

    public static class MaxHoldBelowTtl {
        @Locked(name = "'x'", ttl = "10s", maxHold = "5s")
        public void run() {
        }
    }

    public static class BadLeaseTime {
        @Locked(name = "'x'", leaseTime = "ten seconds")
        public void run() {
        }
    }

    public static class LeaseTimeTooShort {
        @Locked(name = "'x'", leaseTime = "1ms")
        public void run() {
        }
    }

    public static class BadHoldAtLeast {
        @Locked(name = "'x'", holdAtLeast = "1 minute")
        public void run() {
        }
    }

    public static class HoldAtLeastPastLeaseTime {
        @Locked(name = "'x'", leaseTime = "10s", holdAtLeast = "1m")
        public void run() {
        }
    }

    public static class SkipPrimitive {
        @Locked(name = "'x'", ifLocked = IfLocked.SKIP)
        public long count() {
            return 1;
        }
    }

    public static class SkipVoidAndWrapper {
        @Locked(name = "'x'", ifLocked = IfLocked.SKIP, holdAtLeast = "1m", maxHold = "1h")
        public void run() {
        }

        @Locked(name = "'y'", ifLocked = IfLocked.SKIP, leaseTime = "1m", holdAtLeast = "30s")
        public Long count() {
            return 1L;
        }
    }

    public static class UnresolvedPlaceholder {
        @Locked(name = "'x'", waitFor = "${orders.lock-wait}")
        public void run() {
        }
    }

    public static class PermitsWithoutCount {
        @Locked(name = "'x'", kind = LockKind.Permits.class)
        public void run() {
        }
    }

    public static class CountWithoutPermits {
        @Locked(name = "'x'", kind = LockKind.Write.class, permits = 2)
        public void run() {
        }
    }

    public static class TooManyPermits {
        @Locked(name = "'x'", kind = LockKind.Permits.class, permits = Integer.MAX_VALUE)
        public void run() {
        }
    }

    public static class KindInterface {
        @Locked(name = "'x'", kind = LockKind.class)
        public void run() {
        }
    }
}
