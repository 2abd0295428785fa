package dev.leasehold.spring;

import dev.leasehold.Leadership;
import dev.leasehold.LeadershipOptions;
import dev.leasehold.LockClient;
import dev.leasehold.LockOptions;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;

import java.util.function.Supplier;

/**
 * A {@link Leadership} bean when {@code leasehold.leadership.name} is set: this application runs for
 * leader of that name on the application's {@link LockClient} from context start until it closes,
 * and hears of its terms as {@link LeadershipGrantedEvent} and {@link LeadershipRevokedEvent}.
 */
@AutoConfiguration(after = LeaseholdAutoConfiguration.class)
@EnableConfigurationProperties(LeaseholdProperties.class)
@ConditionalOnProperty(prefix = "leasehold.leadership", name = "name")
@ConditionalOnBean(LockClient.class)
public class LeaseholdLeadershipAutoConfiguration {

    /**
     * The candidate, closed with the context.
     *
     * @throws LeaseholdConfigurationException naming the property when the name, ttl, leader id or value is unusable
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(Leadership.class)
    public Leadership leaseholdLeadership(LockClient locks, LeaseholdProperties properties) {
        LeaseholdProperties.LeaderElection election = properties.getLeadership();
        LeadershipOptions options = LeadershipOptions.defaults();
        options = options.withLockOptions(checked("leasehold.leadership.ttl", () -> LockOptions.watchdog(election.getTtl())));
        if (election.getLeaderId() != null) {
            LeadershipOptions base = options;
            options = checked("leasehold.leadership.leader-id", () -> base.withLeaderId(election.getLeaderId()));
        }
        if (election.getValue() != null) {
            LeadershipOptions base = options;
            options = checked("leasehold.leadership.value", () -> base.withValue(election.getValue()));
        }
        LeadershipOptions chosen = options;
        return checked("leasehold.leadership.name", () -> locks.leadership(election.getName(), chosen));
    }

    /** Starts the candidate with the context and publishes its events. */
    @Bean
    LeadershipLifecycle leaseholdLeadershipLifecycle(Leadership leadership, ApplicationEventPublisher events) {
        return new LeadershipLifecycle(leadership, events);
    }

    private static <T> T checked(String property, Supplier<T> value) {
        try {
            return value.get();
        } catch (IllegalArgumentException bad) {
            throw new LeaseholdConfigurationException(property, bad.getMessage(), bad);
        }
    }
}
