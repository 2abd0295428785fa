package dev.leasehold.micrometer;

import io.micrometer.common.KeyValues;

/**
 * The default {@link AcquireObservationConvention}: name {@value #NAME}; low-cardinality keys
 * {@code leasehold.kind}, {@code leasehold.backend}, {@code leasehold.outcome}; the high-cardinality
 * {@code leasehold.lock.name} only when made with {@code lockNames}. Extend it to rename or to add keys.
 */
public class DefaultAcquireObservationConvention implements AcquireObservationConvention {

    /** The observation's name; a timer of this name (with {@code outcome} etc.) follows where meters observe it. */
    public static final String NAME = "leasehold.acquire";

    private final LockKeyValues keyValues;

    /** Without the lock name. */
    public DefaultAcquireObservationConvention() {
        this(false);
    }

    /** @param lockNames whether to add the lock name as a high-cardinality key value */
    public DefaultAcquireObservationConvention(boolean lockNames) {
        this.keyValues = new LockKeyValues(lockNames);
    }

    @Override
    public String getName() {
        return NAME;
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(AcquireObservationContext context) {
        return keyValues.lowCardinality(context);
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(AcquireObservationContext context) {
        return keyValues.highCardinality(context);
    }
}
