package dev.leasehold.engine;

import java.util.Locale;

/** Why a lease was lost, as {@link LeaseEvents#leaseLost} reports it: a small, fixed set, fit for a meter tag. */
public enum LossReason {
    /** The local deadline passed without a successful renewal (a fixed lease ran out, or renewals failed). */
    EXPIRED,
    /** The watchdog lease reached its {@code maxHold} and renewal stopped on purpose. */
    MAX_HOLD,
    /** A renewal or an extension found another holder, or no key: the lock was taken or broken. */
    REFUSED,
    /** The backend itself reported the lease gone (e.g. a ZooKeeper session lost). */
    BACKEND,
    /** The client was closed while the lease was held. */
    CLIENT_CLOSED;

    /** The lower-case name, as a meter tag value ({@code expired}, {@code max_hold}, ...). */
    public String tag() {
        return name().toLowerCase(Locale.ROOT);
    }
}
