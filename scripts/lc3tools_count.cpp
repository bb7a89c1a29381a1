// Counts the instructions lc3tools executes for a program and its input, to check asmdbg's
// --profile lc3tools against lc3tools itself (tests/programs_lc3.rs records the numbers).
// Build, from a checkout of chiragsakhuja/lc3tools (74d5e97) with cmake and g++:
//   cmake -DCMAKE_BUILD_TYPE=Release -DBUILD_SAMPLES=OFF . && make lc3core   (src/test left out)
//   g++ -std=c++14 -Isrc/backend -Isrc/common scripts/lc3tools_count.cpp lib/liblc3core.a -pthread -o lc3count
// Run: lc3count GAME.asm < INPUT   (prints the count; lc3tools' messages go to stderr);
// with IGNORE_PRIVILEGE set in the environment, as lc3tools' --ignore-privilege.
#define API_VER 2
#include "interface.h"
#include <iostream>
#include <iterator>
#include <cstdlib>
#include <string>

struct ScriptInput : lc3::utils::IInputter {
    std::string text;
    size_t next = 0;
    void beginInput(void) override {}
    bool getChar(char & c) override {
        if (next < text.size()) { c = text[next++]; return true; }
        return false;
    }
    void endInput(void) override {}
    bool hasRemaining(void) const override { return next < text.size(); }
};

struct Quiet : lc3::utils::IPrinter {
    void setColor(lc3::utils::PrintColor) override {}
    void print(std::string const & s) override { std::cerr << s; }
    void newline(void) override { std::cerr << "\n"; }
};

int main(int argc, char * argv[]) {
    Quiet printer;
    ScriptInput input;
    input.text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    lc3::as assembler(printer, 0, true);
    auto obj = assembler.assemble(argv[1]);
    if (!obj) { std::cerr << "assembly failed\n"; return 2; }
    lc3::sim sim(printer, input, 0);
    if (std::getenv("IGNORE_PRIVILEGE")) sim.setIgnorePrivilege(true);
    sim.loadObjFile(obj->first);
    sim.run();
    std::cout << sim.getInstExecCount() << "\n";
    return 0;
}
