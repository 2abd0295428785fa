package dev.leasehold;

import java.net.InetAddress;
import java.net.UnknownHostException;

/** This machine's name, for what people read: a leader's display id, who broke a lock. */
final class LocalHost {

    private LocalHost() {
    }

    /** The local host's name, or {@code unknown-host} if it cannot be resolved (or may not be asked). */
    static String name() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException | SecurityException unknown) {
            return "unknown-host";
        }
    }
}
