package dev.leasehold.launcher;

/**
 * Run in a child JVM by {@link NamespaceNetworkTest}: creates a network with a cut in place, prints
 * its first namespace and halts without running shutdown hooks, as a JVM killed by SIGKILL would.
 */
public final class NamespaceNetworkProbe {

    private NamespaceNetworkProbe() {
    }

    public static void main(String[] args) {
        NamespaceNetwork network = NamespaceNetwork.create(2);
        network.cut(0, 1);
        network.cutFromTestJvm(0);
        System.out.println("namespace=" + network.namespace(0));
        System.out.println("address=" + network.address(0));
        System.out.flush();
        Runtime.getRuntime().halt(0);
    }
}
