package dev.leasehold.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** How busy the machine was, for a report's header. */
final class MachineLoad {

    private MachineLoad() {
    }

    /** Processors and the 1-minute load average now, e.g. "2 CPUs, 1-minute load 1.93". */
    static String now() {
        String load;
        try {
            load = Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (IOException e) {
            load = "unknown";
        }
        return Runtime.getRuntime().availableProcessors() + " CPUs, 1-minute load " + load;
    }
}
