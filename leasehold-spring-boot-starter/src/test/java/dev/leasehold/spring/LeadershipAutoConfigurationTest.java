package dev.leasehold.spring;

import dev.leasehold.LeaderInfo;
import dev.leasehold.Leadership;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Two application contexts on one real Redis run for leader of one name; events arrive as Spring events. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LeadershipAutoConfigurationTest {

    @RegisterExtension
    static final TestServer<RedisServer> server = TestServer.perClass(() -> RedisServer.builder().start());

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LeaseholdAutoConfiguration.class,
                    LeaseholdLeadershipAutoConfiguration.class))
            .withUserConfiguration(Events.class);

    @Test
    void oneOfTwoContextsLeadsAndTheOtherTakesOverAtOnceWhenItCloses() {
        ApplicationContextRunner app = runner.withPropertyValues("leasehold.redis.uri=" + server.get().uri(),
                "leasehold.leadership.name=spring:leader", "leasehold.leadership.ttl=20s");
        app.withPropertyValues("leasehold.leadership.leader-id=app-a", "leasehold.leadership.value=10.0.0.1:8080")
                .run(a -> {
                    Events aEvents = a.getBean(Events.class);
                    LeadershipGrantedEvent first = (LeadershipGrantedEvent) aEvents.next();
                    assertThat(a.getBean(Leadership.class).isLeader()).isTrue();
                    app.withPropertyValues("leasehold.leadership.leader-id=app-b").run(b -> {
                        Leadership candidate = b.getBean(Leadership.class);
                        assertThat(candidate.isLeader()).isFalse();
                        assertThat(candidate.currentLeader()).contains(new LeaderInfo("app-a",
                                first.getTerm().token(), Optional.of("10.0.0.1:8080")));
                        long closing = System.nanoTime();
                        a.close();
                        LeadershipRevokedEvent revoked = (LeadershipRevokedEvent) aEvents.next();
                        assertThat(revoked.getReason()).contains("resigned");
                        assertThat(revoked.getTerm()).isSameAs(first.getTerm());
                        assertThat(first.getTerm().isValid()).isFalse();
                        LeadershipGrantedEvent second = (LeadershipGrantedEvent) b.getBean(Events.class).next();
                        assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - closing))
                                .as("taken over long before the 20 s ttl").isLessThan(10);
                        assertThat(second.getTerm().token()).isGreaterThan(first.getTerm().token());
                        assertThat(candidate.currentLeader().map(LeaderInfo::leaderId)).contains("app-b");
                    });
                });
    }

    @Test
    void withoutANameThereIsNoLeadership() {
        runner.withPropertyValues("leasehold.redis.uri=" + server.get().uri())
                .run(context -> assertThat(context).doesNotHaveBean(Leadership.class));
    }

    @Test
    void aBadTtlFailsTheStartupNamingTheProperty() {
        runner.withPropertyValues("leasehold.redis.uri=" + server.get().uri(), "leasehold.leadership.name=spring:bad",
                "leasehold.leadership.ttl=1ms").run(context -> assertThat(context).getFailure()
                .hasRootCauseInstanceOf(IllegalArgumentException.class)
                .hasStackTraceContaining("leasehold.leadership.ttl"));
    }

    @Test
    void aMisspelledLeadershipPropertyFailsTheStartup() {
        runner.withPropertyValues("leasehold.redis.uri=" + server.get().uri(), "leasehold.leadership.nmae=spring:typo")
                .run(context -> assertThat(context).getFailure().hasStackTraceContaining("leasehold.leadership.name"));
    }

    /** Records the leadership events of one context, in order. */
    @Configuration(proxyBeanMethods = false)
    static class Events implements ApplicationListener<ApplicationEvent> {

        private final BlockingQueue<ApplicationEvent> received = new LinkedBlockingQueue<>();

        @Override
        public void onApplicationEvent(ApplicationEvent event) {
            if (event instanceof LeadershipGrantedEvent || event instanceof LeadershipRevokedEvent) {
                received.add(event);
            }
        }

        ApplicationEvent next() throws InterruptedException {
            ApplicationEvent event = received.poll(15, TimeUnit.SECONDS);
            assertThat(event).as("a leadership event within 15 s").isNotNull();
            return event;
        }
    }
}
