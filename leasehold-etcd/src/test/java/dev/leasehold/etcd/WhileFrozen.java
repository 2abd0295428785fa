package dev.leasehold.etcd;

import dev.leasehold.launcher.EtcdCluster;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/** Sends calls to a frozen cluster (SIGSTOP), so that the first stays on the wire and the others queue behind it. */
final class WhileFrozen {

    private WhileFrozen() {
    }

    /**
     * Freezes every member, applies {@code send} to each input in order, gives the client 200 ms to
     * queue them, and resumes the members.
     *
     * @return what {@code send} returned for each input, in order
     */
    static <I, T> List<T> each(EtcdCluster cluster, List<I> inputs, Function<I, T> send) throws InterruptedException {
        List<T> sent = new ArrayList<>();
        cluster.pauseAll();
        try {
            for (I input : inputs) {
                sent.add(send.apply(input));
            }
            Thread.sleep(200);
        } finally {
            cluster.resumeAll();
        }
        return sent;
    }
}
