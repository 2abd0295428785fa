package dev.leasehold.testkit.contract;

import org.junit.jupiter.params.provider.ArgumentsSource;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The lock kinds a contract test class runs its contract for, by {@link dev.leasehold.LockKind#tag()}:
 * {@code lock}, {@code fair_lock}, {@code write}, {@code semaphore} (one permit, seen as a lock).
 * The whole contract runs once per kind, each kind in its own invocation of the class; a backend's
 * kind x backend coverage is these annotations. {@code read} is refused: readers share the lock,
 * and the contract tests a kind that excludes itself.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@ArgumentsSource(ContractKindsProvider.class)
public @interface ContractKinds {

    /** Tags of the kinds to run the contract for, each at most once. */
    String[] value();
}
