package dev.leasehold;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** The {@link MultiLease} of {@link SortedMultiLock}: its parts' leases, valid together, lost together. */
final class CompositeLease implements MultiLease {

    private final List<Lease> parts;
    private final CompletableFuture<LeaseLostException> lost = new CompletableFuture<>();

    CompositeLease(List<Lease> parts) {
        this.parts = List.copyOf(parts);
        for (Lease part : this.parts) {
            part.lost().thenAccept(lost::complete);
        }
    }

    @Override
    public List<Lease> leases() {
        return parts;
    }

    @Override
    public Lease lease(String name) {
        return parts.stream().filter(part -> part.lockName().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("this multi-lease has no part named '" + name
                        + "'; its parts are " + parts.stream().map(Lease::lockName).toList()));
    }

    @Override
    public boolean isValid() {
        return parts.stream().allMatch(Lease::isValid);
    }

    @Override
    public CompletionStage<LeaseLostException> lost() {
        return lost.minimalCompletionStage();
    }

    @Override
    public ReleaseStatus release() {
        ReleaseStatus status = ReleaseStatus.RELEASED;
        LeaseholdException failure = null;
        for (Lease part : parts) {
            try {
                if (part.release() != ReleaseStatus.RELEASED) {
                    status = ReleaseStatus.ALREADY_LOST;
                }
            } catch (LeaseholdException partFailed) {
                if (failure == null) {
                    failure = partFailed;
                } else {
                    failure.addSuppressed(partFailed);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
        return status;
    }

    @Override
    public void close() {
        release();
    }

    @Override
    public String toString() {
        return "MultiLease" + parts;
    }
}
