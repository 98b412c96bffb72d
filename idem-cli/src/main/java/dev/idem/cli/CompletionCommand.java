package dev.idem.cli;

import picocli.AutoComplete;
import picocli.CommandLine.Command;

/**
 * {@code idem generate-completion}: picocli's completion script generator, with examples like every
 * other command's help.
 */
@Command(
    name = "generate-completion",
    footerHeading = "%nExamples:%n",
    footer = {
      "  # bash completion in this shell, then in every new one (zsh: run",
      "  # 'autoload -U +X bashcompinit && bashcompinit' first)",
      "  source <(idem generate-completion)",
      "  idem generate-completion > ~/.local/share/bash-completion/completions/idem"
    })
class CompletionCommand extends AutoComplete.GenerateCompletion {}
