package dev.leasehold.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;

/**
 * {@code leasehold}: distributed locks with fencing tokens, from the command line. Without a
 * subcommand it prints its help to stderr and exits with the usage error code.
 */
@Command(name = "leasehold",
        mixinStandardHelpOptions = true,
        versionProvider = LeaseholdCommand.Version.class,
        description = "Distributed locks with fencing tokens, on Redis, ZooKeeper or etcd (--backend). Start with: "
                + "leasehold demo",
        subcommands = {DemoCommand.class, RunCommand.class, InspectCommand.class, ListCommand.class,
                BreakCommand.class, HelpCommand.class},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
                "0:success; run passes its command's exit code through",
                "1:break: not confirmed on the terminal",
                "64:usage error: a malformed option, duration or URI; break without --yes and without a terminal",
                "66:break: the lock was free, nothing was broken",
                "69:backend unreachable, or it refused the credentials",
                "70:internal error",
                "75:run: lock not obtained within --wait",
                "79:run: lease lost, the command was terminated",
                "126:run: command not executable (127: not found)"})
final class LeaseholdCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return ExitCodes.USAGE;
    }

    /** The version from the jar's manifest, or a note that this is a build from the source tree. */
    static final class Version implements IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = LeaseholdCommand.class.getPackage().getImplementationVersion();
            return new String[] {"leasehold " + (version == null ? "(built from the source tree)" : version)};
        }
    }
}
