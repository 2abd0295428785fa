package dev.leasehold.spring;

import dev.leasehold.Lease;
import dev.leasehold.launcher.RedisServer;
import org.aopalliance.intercept.MethodInterceptor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.aop.Advisor;
import org.springframework.aop.framework.autoproxy.DefaultAdvisorAutoProxyCreator;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lock is the outermost advice: another advisor of the bean (a transaction's, say), applied by
 * an auto-proxy creator as Spring's {@code @EnableTransactionManagement} registers one, runs while
 * the lock is already held.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LockedAdviceOrderTest {

    @Test
    void otherAdviceRunsInsideTheLock() {
        try (RedisServer server = RedisServer.builder().start()) {
            new ApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(LeaseholdAutoConfiguration.class))
                    .withUserConfiguration(OtherAdvice.class)
                    .withPropertyValues("leasehold.redis.uri=" + server.uri())
                    .run(context -> {
                        context.getBean(Ledger.class).post(5);
                        assertThat(context.getBean(OtherAdvice.class).seen)
                                .containsExactly("advice sees ledger:5", "method sees ledger:5");
                    });
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OtherAdvice {

        final List<String> seen = new ArrayList<>();

        @Bean
        static DefaultAdvisorAutoProxyCreator autoProxyCreator() {
            DefaultAdvisorAutoProxyCreator creator = new DefaultAdvisorAutoProxyCreator();
            creator.setOrder(Ordered.HIGHEST_PRECEDENCE);
            creator.setProxyTargetClass(true);
            return creator;
        }

        @Bean
        Advisor recordingAdvisor() {
            MethodInterceptor recording = invocation -> {
                seen.add("advice sees " + Lease.current().lockName());
                return invocation.proceed();
            };
            return new DefaultPointcutAdvisor(new AnnotationMatchingPointcut(null, Locked.class, true), recording);
        }

        @Bean
        Ledger ledger() {
            return new Ledger(seen);
        }
    }

    static class Ledger {

        private final List<String> seen;

        Ledger(List<String> seen) {
            this.seen = seen;
        }

        @Locked(name = "'ledger:' + #account")
        public void post(long account) {
            seen.add("method sees " + Lease.current().lockName());
        }
    }
}
