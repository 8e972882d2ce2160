#include "cli/validate_command.hpp"

#include "runner/runner.hpp"

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace decgpe::cli {

namespace {

struct ValidateOptions {
  runner::RunRequest request;
  bool json = false;
};

void print(const runner::RunPlan& plan, bool json) {
  if (json) {
    nlohmann::ordered_json facts = nlohmann::ordered_json::object();
    for (const auto& [name, value] : plan.facts) {
      facts[name] = value;
    }
    std::printf("%s\n", facts.dump(2).c_str());
    return;
  }
  for (const auto& [name, value] : plan.facts) {
    std::printf("%s: %s\n", name.c_str(), value.c_str());
  }
}

} // namespace

void add_validate_command(CLI::App& app, const scaleout::MpiSession& mpi) {
  auto o = std::make_shared<ValidateOptions>();
  o->request.mpi = &mpi;
  o->request.quiet = true;
  CLI::App* cmd = app.add_subcommand(
      "validate",
      "Read and set up a case as run would, write nothing, and print what the run would "
      "be: grid, memory, time step and its limit, steps, estimated wall time");
  cmd->add_option("case", o->request.case_file, "TOML case file (see cases/)")->required();
  cmd->add_option("--set", o->request.overrides, "KEY=VALUE: set a case key, as for run")
      ->take_all()
      ->allow_extra_args(false);
  cmd->add_option("--scheme", o->request.scheme, "overrides the case's time.scheme");
  cmd->add_option("--backend", o->request.backend, "as for run")->capture_default_str();
  cmd->add_flag("--json", o->json, "one JSON object of the facts instead of a line each");
  cmd->callback([o, &mpi] {
    if (mpi.size() > 1) {
      throw std::invalid_argument("validate runs in one process, not on " +
                                  std::to_string(mpi.size()) + " MPI ranks");
    }
    print(runner::plan_run(o->request), o->json);
  });
}

} // namespace decgpe::cli
