package dev.leasehold.micrometer;

import io.micrometer.common.KeyValues;

import static dev.leasehold.micrometer.LeaseholdObservation.Keys;

/** The key values both default conventions share: the lock's kind, backend and outcome, and the name when asked for. */
final class LockKeyValues {

    private final boolean lockNames;

    LockKeyValues(boolean lockNames) {
        this.lockNames = lockNames;
    }

    /** {@code leasehold.kind}, {@code leasehold.backend}, {@code leasehold.outcome}. */
    KeyValues lowCardinality(LockObservationContext context) {
        return KeyValues.of(Keys.KIND.withValue(context.kind()), Keys.BACKEND.withValue(context.backend()),
                Keys.OUTCOME.withValue(context.outcome()));
    }

    /** {@code leasehold.lock.name} when asked for, else none. */
    KeyValues highCardinality(LockObservationContext context) {
        return lockNames ? KeyValues.of(Keys.LOCK_NAME.withValue(context.lockName())) : KeyValues.empty();
    }
}
