package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/idem install} from an unpacked release archive: it never silently replaces files of
 * the user's own (a program named idem, a man page); it refuses, naming them, or with {@code
 * --backup} keeps each as {@code FILE.orig} and says so; an earlier install of its own it replaces.
 */
class InstallTest {

  @TempDir Path dir;
  private Path root;
  private Path prefix;

  /** An unpacked archive: bin/idem, a lib/idem.jar that runs this build's classes, man pages. */
  @BeforeEach
  void archive() throws IOException {
    root = dir.resolve("idem-test");
    Path launcher = Files.createDirectories(root.resolve("bin")).resolve("idem");
    Files.copy(Path.of("..", "bin", "idem"), launcher, StandardCopyOption.COPY_ATTRIBUTES);
    Manifest m = new Manifest();
    m.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    m.getMainAttributes().put(Attributes.Name.MAIN_CLASS, IdemCommand.class.getName());
    m.getMainAttributes()
        .put(
            Attributes.Name.CLASS_PATH,
            Stream.of(System.getProperty("java.class.path").split(File.pathSeparator))
                .map(p -> Path.of(p).toAbsolutePath().toUri().toString())
                .collect(Collectors.joining(" ")));
    Path lib = Files.createDirectories(root.resolve("lib"));
    try (OutputStream jar =
        new JarOutputStream(Files.newOutputStream(lib.resolve("idem.jar")), m)) {
      // the manifest alone
    }
    Path man = Files.createDirectories(root.resolve("share/man/man1"));
    for (String page : new String[] {"idem.1", "idem-dedup.1"}) {
      Files.writeString(man.resolve(page), ".\\\"    Manual: Idem Manual\n.TH \"IDEM\" \"1\"\n");
    }
    prefix = dir.resolve("prefix");
  }

  private record Run(int status, String err) {}

  private Run install(String... extra) throws Exception {
    String[] command = new String[2 + extra.length];
    command[0] = root.resolve("bin/idem").toString();
    command[1] = "install";
    System.arraycopy(extra, 0, command, 2, extra.length);
    ProcessBuilder b = new ProcessBuilder(command).redirectErrorStream(false);
    b.environment().put("PREFIX", prefix.toString());
    b.environment()
        .put(
            "PATH",
            Path.of(System.getProperty("java.home"), "bin") + File.pathSeparator + "/usr/bin:/bin");
    Process p = b.start();
    p.getOutputStream().close();
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(2, TimeUnit.MINUTES)).isTrue();
    return new Run(p.exitValue(), err);
  }

  private Path users(String relative, String content) throws IOException {
    Path f = prefix.resolve(relative);
    Files.createDirectories(f.getParent());
    Files.writeString(f, content);
    return f;
  }

  @Test
  void theUsersOwnFilesAreRefusedByNameAndLeftAsTheyAre() throws Exception {
    Path program = users("bin/idem", "#!/bin/sh\necho my own idem\n");
    Files.setPosixFilePermissions(program, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path page = users("share/man/man1/idem.1", ".TH MY-IDEM 1\n");

    Run r = install();

    assertThat(r.status()).as(r.err()).isEqualTo(1);
    assertThat(r.err())
        .contains("not installed")
        .contains(program.toString())
        .contains(page.toString());
    assertThat(Files.readString(program)).isEqualTo("#!/bin/sh\necho my own idem\n");
    assertThat(Files.isSymbolicLink(program)).isFalse();
    assertThat(Files.readString(page)).isEqualTo(".TH MY-IDEM 1\n");
    assertThat(prefix.resolve("share/bash-completion/completions/idem")).doesNotExist();
  }

  @Test
  void withBackupTheyAreKeptAsOrigAndSaid() throws Exception {
    Path program = users("bin/idem", "#!/bin/sh\necho my own idem\n");
    Path page = users("share/man/man1/idem.1", ".TH MY-IDEM 1\n");

    Run r = install("--backup");

    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.err())
        .contains(
            "moved " + program + ", which an idem install did not write, to " + program + ".orig");
    assertThat(Files.readString(Path.of(program + ".orig"))).contains("my own idem");
    assertThat(Files.readString(Path.of(page + ".orig"))).isEqualTo(".TH MY-IDEM 1\n");
    assertThat(Files.isSymbolicLink(program)).isTrue();
    assertThat(program.toRealPath()).isEqualTo(root.resolve("bin/idem").toRealPath());
    assertThat(Files.readString(page)).contains("Idem Manual");
    assertThat(Files.readString(prefix.resolve("share/bash-completion/completions/idem")))
        .contains("_picocli_idem");
  }

  @Test
  void anEarlierInstallIsReplacedWithoutAWord() throws Exception {
    assertThat(install().status()).isZero();
    Run again = install();
    assertThat(again.status()).as(again.err()).isZero();
    assertThat(again.err()).doesNotContain("not installed").doesNotContain("moved");
    assertThat(prefix.resolve("bin/idem.orig")).doesNotExist();
  }
}
