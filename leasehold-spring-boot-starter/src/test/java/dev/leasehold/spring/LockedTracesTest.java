package dev.leasehold.spring;

import dev.leasehold.Lease;
import dev.leasehold.LockTimeoutException;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.micrometer.DefaultAcquireObservationConvention;
import dev.leasehold.micrometer.DefaultLeaseObservationConvention;
import dev.leasehold.testkit.junit.TestServer;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.otel.bridge.OtelBaggageManager;
import io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A {@code @Locked} call inside a request's observation: the wait ({@code leasehold.acquire}) and the
 * hold ({@code leasehold.lease}) are its children, in a {@link TestObservationRegistry} and as spans of
 * a real OpenTelemetry SDK, through Micrometer Tracing's bridge, exported in memory.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LockedTracesTest {

    private static final String ACQUIRE = DefaultAcquireObservationConvention.NAME;
    private static final String LEASE = DefaultLeaseObservationConvention.NAME;

    @RegisterExtension
    static final TestServer<RedisServer> server = TestServer.perClass(() -> RedisServer.builder().start());

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LeaseholdAutoConfiguration.class))
            .withBean(Payments.class);

    private ApplicationContextRunner with(ObservationRegistry registry) {
        return runner.withBean(ObservationRegistry.class, () -> registry)
                .withPropertyValues("leasehold.redis.uri=" + server.get().uri());
    }

    @Test
    void theWaitAndTheHoldOfALockedCallAreChildrenOfTheRequest() {
        TestObservationRegistry registry = TestObservationRegistry.create();
        with(registry).run(context -> {
            Payments payments = context.getBean(Payments.class);
            Observation request = Observation.createNotStarted("http.server.requests", registry);
            assertThat(request.observe(() -> payments.pay(7))).isEqualTo("pay:7");

            assertThat(registry).hasObservationWithNameEqualTo(ACQUIRE).that()
                    .hasParentObservationEqualTo(request).hasBeenStopped().doesNotHaveError()
                    .hasLowCardinalityKeyValue("leasehold.kind", "lock")
                    .hasLowCardinalityKeyValue("leasehold.backend", server.get().uri())
                    .hasLowCardinalityKeyValue("leasehold.outcome", "acquired")
                    .doesNotHaveHighCardinalityKeyValueWithKey("leasehold.lock.name");
            assertThat(registry).hasObservationWithNameEqualTo(LEASE).that()
                    .hasParentObservationEqualTo(request).hasBeenStopped()
                    .hasLowCardinalityKeyValue("leasehold.outcome", "released");
        });
    }

    @Test
    void aTimedOutCallEndsItsWaitWithTheError() {
        TestObservationRegistry registry = TestObservationRegistry.create();
        with(registry).run(context -> {
            server.get().command("SET", "pay:8", "someone-else", "PX", "30000");
            Payments payments = context.getBean(Payments.class);
            assertThatThrownBy(() -> payments.payQuickly(8)).isInstanceOf(LockTimeoutException.class);
            assertThat(registry).hasObservationWithNameEqualTo(ACQUIRE).that()
                    .hasLowCardinalityKeyValue("leasehold.outcome", "timeout")
                    .assertThatError().isInstanceOf(LockTimeoutException.class);
            assertThat(registry).hasNumberOfObservationsWithNameEqualTo(LEASE, 0);
        });
    }

    @Test
    void lockNamesOnlyWhenAskedForAndNothingWhenTurnedOff() {
        TestObservationRegistry named = TestObservationRegistry.create();
        with(named).withPropertyValues("leasehold.observations.lock-names=true").run(context -> {
            context.getBean(Payments.class).pay(9);
            assertThat(named).hasObservationWithNameEqualTo(LEASE).that()
                    .hasHighCardinalityKeyValue("leasehold.lock.name", "pay:9");
        });
        TestObservationRegistry off = TestObservationRegistry.create();
        with(off).withPropertyValues("leasehold.observations.enabled=false").run(context -> {
            context.getBean(Payments.class).pay(10);
            assertThat(off).doesNotHaveAnyObservation();
        });
    }

    @Test
    void aRealOpenTelemetrySdkShowsTheWaitAndTheHoldInsideTheRequestSpan() {
        InMemorySpanExporter exporter = InMemorySpanExporter.create();
        try (SdkTracerProvider provider = SdkTracerProvider.builder()
                .addSpanProcessor(SimpleSpanProcessor.create(exporter)).build()) {
            OtelCurrentTraceContext current = new OtelCurrentTraceContext();
            OtelTracer tracer = new OtelTracer(provider.get("leasehold-test"), current, event -> { },
                    new OtelBaggageManager(current, List.of(), List.of()));
            ObservationRegistry registry = ObservationRegistry.create();
            registry.observationConfig().observationHandler(new DefaultTracingObservationHandler(tracer));
            with(registry).run(context -> {
                Payments payments = context.getBean(Payments.class);
                Observation.createNotStarted("checkout", registry).observe(() -> payments.pay(11));
            });

            Map<String, SpanData> spans = exporter.getFinishedSpanItems().stream()
                    .collect(Collectors.toMap(SpanData::getName, Function.identity()));
            assertThat(spans).containsOnlyKeys("checkout", ACQUIRE, LEASE);
            SpanData checkout = spans.get("checkout");
            for (SpanData child : List.of(spans.get(ACQUIRE), spans.get(LEASE))) {
                assertThat(child.getTraceId()).isEqualTo(checkout.getTraceId());
                assertThat(child.getParentSpanId()).as(child.getName() + " inside the request").isEqualTo(checkout.getSpanId());
                assertThat(child.getAttributes().asMap().keySet().stream().map(Object::toString))
                        .contains("leasehold.kind", "leasehold.backend", "leasehold.outcome")
                        .doesNotContain("leasehold.lock.name");
            }
            assertThat(spans.get(ACQUIRE).getEndEpochNanos()).as("the hold begins when the wait ends")
                    .isLessThanOrEqualTo(spans.get(LEASE).getStartEpochNanos());
            assertThat(spans.get(LEASE).getEndEpochNanos()).isLessThanOrEqualTo(checkout.getEndEpochNanos());
        }
    }

    static class Payments {
        @Locked(name = "'pay:' + #id", waitFor = "5s")
        public String pay(long id) {
            return Lease.current().lockName();
        }

        @Locked(name = "'pay:' + #id", waitFor = "100ms")
        public String payQuickly(long id) {
            return Lease.current().lockName();
        }
    }
}
