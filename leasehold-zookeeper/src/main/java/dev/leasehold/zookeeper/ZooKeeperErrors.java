package dev.leasehold.zookeeper;

import dev.leasehold.LeaseholdException;
import dev.leasehold.LockUnavailableException;
import dev.leasehold.NodeFailure;
import org.apache.zookeeper.KeeperException;

/** Turns ZooKeeper's result codes into the API's exceptions, naming the ensemble and the operation. */
final class ZooKeeperErrors {

    private ZooKeeperErrors() {
    }

    /** A failed result code of {@code operation} as a {@link LockUnavailableException}. */
    static LeaseholdException of(String ensemble, String operation, KeeperException.Code code) {
        NodeFailure.Kind kind = switch (code) {
            case CONNECTIONLOSS, OPERATIONTIMEOUT, SESSIONEXPIRED, SESSIONMOVED -> NodeFailure.Kind.TIMED_OUT;
            case NOAUTH, AUTHFAILED -> NodeFailure.Kind.AUTHENTICATION;
            default -> NodeFailure.Kind.ERROR;
        };
        KeeperException cause = KeeperException.create(code);
        String advice = kind == NodeFailure.Kind.TIMED_OUT
                ? "; check that a majority of the ensemble is running and reachable"
                : kind == NodeFailure.Kind.AUTHENTICATION ? "; check the client's credentials and the nodes' ACLs" : "";
        return new LockUnavailableException(operation + " failed at ZooKeeper " + ensemble + ": " + code + advice,
                new NodeFailure(ensemble, kind, cause));
    }

    /** An exception thrown while sending {@code operation} (e.g. the framework is closed). */
    static LeaseholdException of(String ensemble, String operation, Exception error) {
        if (error instanceof LeaseholdException leasehold) {
            return leasehold;
        }
        if (error instanceof KeeperException keeper) {
            return of(ensemble, operation, keeper.code());
        }
        return new LockUnavailableException(operation + " could not be sent to ZooKeeper " + ensemble + ": " + error,
                new NodeFailure(ensemble, NodeFailure.Kind.ERROR, error));
    }
}
