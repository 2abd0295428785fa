package dev.leasehold.micrometer;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/**
 * Leasehold's two observations and their keys, as Micrometer documents observations. Every
 * low-cardinality key is present on every observation of its name (a meter's tags stay the same
 * set); the lock name is the one high-cardinality key, and only when asked for
 * ({@link ObservationLeaseEvents#of(io.micrometer.observation.ObservationRegistry, boolean)}).
 */
public enum LeaseholdObservation implements ObservationDocumentation {

    /** {@value DefaultAcquireObservationConvention#NAME}: one acquisition's wait, from the call to its outcome. */
    ACQUIRE {
        @Override
        public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
            return DefaultAcquireObservationConvention.class;
        }

        @Override
        public KeyName[] getLowCardinalityKeyNames() {
            return new KeyName[] {Keys.KIND, Keys.BACKEND, Keys.OUTCOME};
        }

        @Override
        public KeyName[] getHighCardinalityKeyNames() {
            return new KeyName[] {Keys.LOCK_NAME};
        }
    },

    /** {@value DefaultLeaseObservationConvention#NAME}: one hold, from the grant to the release or the loss. */
    LEASE {
        @Override
        public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
            return DefaultLeaseObservationConvention.class;
        }

        @Override
        public KeyName[] getLowCardinalityKeyNames() {
            return new KeyName[] {Keys.KIND, Keys.BACKEND, Keys.OUTCOME, Keys.LOSS_REASON};
        }

        @Override
        public KeyName[] getHighCardinalityKeyNames() {
            return new KeyName[] {Keys.LOCK_NAME};
        }
    };

    /** The keys of both observations. */
    public enum Keys implements KeyName {

        /** {@code leasehold.kind}: {@code lock}, {@code fair_lock}, {@code read}, {@code write} or {@code semaphore}. */
        KIND("leasehold.kind"),
        /** {@code leasehold.backend}: where the backend lives, without credentials. */
        BACKEND("leasehold.backend"),
        /**
         * {@code leasehold.outcome}: for an acquire {@code acquired}, {@code timeout}, {@code skipped},
         * {@code unavailable}, {@code failed} or {@code cancelled}; for a lease {@code released} or {@code lost}.
         */
        OUTCOME("leasehold.outcome"),
        /** {@code leasehold.loss.reason} (leases): {@code none}, or why it was lost ({@code expired}, {@code refused}, ...). */
        LOSS_REASON("leasehold.loss.reason"),
        /** {@code leasehold.lock.name} (high cardinality, off by default): the lock's name. */
        LOCK_NAME("leasehold.lock.name");

        private final String key;

        Keys(String key) {
            this.key = key;
        }

        @Override
        public String asString() {
            return key;
        }
    }
}
