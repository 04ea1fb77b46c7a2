// The dlc subcommands' entry points: all main.cpp needs (Commands.h, which the commands
// share, pulls in the compiler's headers).
#ifndef DLC_TOOLS_DLC_SUBCOMMANDS_H
#define DLC_TOOLS_DLC_SUBCOMMANDS_H

namespace dlc::cli {

int compileCommand(int argc, char **argv);
int runCommand(int argc, char **argv);
int benchCommand(int argc, char **argv);
int infoCommand(int argc, char **argv);
int checkCommand(int argc, char **argv);
int trainCommand(int argc, char **argv);
int verifyCommand(int argc, char **argv);
int quantizeCommand(int argc, char **argv);

} // namespace dlc::cli

#endif
