package dev.leasehold.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FreePortsTest {

    @Test
    void handsOutDistinctBindablePorts() throws IOException {
        Set<Integer> ports = new HashSet<>();
        for (int i = 0; i < 200; i++) {
            ports.add(FreePorts.find());
        }
        assertThat(ports).hasSize(200);

        int port = FreePorts.find();
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getByName("127.0.0.1"))) {
            assertThat(socket.getLocalPort()).isEqualTo(port);
        }
    }
}
