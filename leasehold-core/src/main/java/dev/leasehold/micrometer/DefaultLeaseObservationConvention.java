package dev.leasehold.micrometer;

import io.micrometer.common.KeyValues;

import static dev.leasehold.micrometer.LeaseholdObservation.Keys;

/**
 * The default {@link LeaseObservationConvention}: name {@value #NAME}; low-cardinality keys
 * {@code leasehold.kind}, {@code leasehold.backend}, {@code leasehold.outcome},
 * {@code leasehold.loss.reason}; the high-cardinality {@code leasehold.lock.name} only when made with
 * {@code lockNames}. Extend it to rename or to add keys.
 */
public class DefaultLeaseObservationConvention implements LeaseObservationConvention {

    /** The observation's name. */
    public static final String NAME = "leasehold.lease";

    private final LockKeyValues keyValues;

    /** Without the lock name. */
    public DefaultLeaseObservationConvention() {
        this(false);
    }

    /** @param lockNames whether to add the lock name as a high-cardinality key value */
    public DefaultLeaseObservationConvention(boolean lockNames) {
        this.keyValues = new LockKeyValues(lockNames);
    }

    @Override
    public String getName() {
        return NAME;
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(LeaseObservationContext context) {
        return keyValues.lowCardinality(context).and(Keys.LOSS_REASON.withValue(context.lossReason()));
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(LeaseObservationContext context) {
        return keyValues.highCardinality(context);
    }
}
