package dev.leasehold.spring;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports a {@link LeaseholdConfigurationException} that stopped the application as Spring Boot
 * reports its own configuration errors ("APPLICATION FAILED TO START", a description and an
 * action), rather than as a stack trace. Registered in {@code META-INF/spring.factories}.
 */
class LeaseholdFailureAnalyzer extends AbstractFailureAnalyzer<LeaseholdConfigurationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, LeaseholdConfigurationException cause) {
        return new FailureAnalysis("Leasehold cannot start with " + cause.setting() + ": " + cause.problem(),
                "Correct " + cause.setting() + " (the leasehold.* properties are listed, with their limits, in the "
                        + "starter's configuration metadata your IDE completes from).", cause);
    }
}
