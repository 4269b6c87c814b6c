#include "run/variant_query.hpp"

#include "run/environment.hpp"
#include "run/spawn.hpp"
#include "run/worker.hpp"
#include "tfbench/engine/core/kokkos_runtime.hpp"
#include "tfbench/harness/runner.hpp"
#include "tfbench/harness/system_info.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <iostream>
#include <map>
#include <sstream>

namespace tfbench::harness {
namespace {

/// A worker that has not answered by then is stuck (a probe that hangs): the query gives up.
constexpr int kQueryTimeoutSeconds = 300;

/// Tabs and line ends would break the line format.
std::string one_field(std::string text) {
  for (char& c : text) {
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  }
  return text;
}

void write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) std::_Exit(4);  // the parent is gone: nobody to answer
    done += static_cast<std::size_t>(n);
  }
}

/// Everything the worker writes until it closes its end; nullopt after the time-out (it is killed).
std::optional<std::string> read_answer(const impl::WorkerProcess& process) {
  std::string text;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kQueryTimeoutSeconds);
  char buffer[4096];
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{process.message_fd, POLLIN, 0};
    if (poll(&p, 1, 200) < 0 && errno != EINTR) break;
    const ssize_t n = ::read(process.message_fd, buffer, sizeof(buffer));
    if (n > 0) {
      text.append(buffer, static_cast<std::size_t>(n));
    } else if (n == 0) {
      return text;
    } else if (errno != EAGAIN && errno != EINTR) {
      return text;
    }
  }
  kill(process.pid, SIGKILL);
  return std::nullopt;
}

struct Answer {
  std::optional<std::string> unstartable;
  std::map<std::string, std::string> skip_reason;  // case id -> reason ("": it runs)
};

Answer parse_answer(const std::string& text) {
  Answer a;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const auto tab = line.find('\t');
    if (tab == std::string::npos) continue;
    const std::string kind = line.substr(0, tab), rest = line.substr(tab + 1);
    if (kind == "unstartable") {
      a.unstartable = rest;
    } else if (kind == "variant") {
      const auto second = rest.find('\t');
      if (second != std::string::npos) a.skip_reason[rest.substr(0, second)] = rest.substr(second + 1);
    }
  }
  return a;
}

/// Applies one worker's answer to its plan.
void apply(WorkerPlan& w, const Answer& a) {
  for (auto& g : w.groups) {
    for (auto& v : g.variants) {
      if (a.unstartable) {
        v.unavailable = "the worker cannot start: " + *a.unstartable;
        continue;
      }
      const auto it = a.skip_reason.find(case_id(g, v.name));
      if (it == a.skip_reason.end()) {
        v.unavailable = "the family does not offer this variant in a worker (run records an error)";
      } else if (it->second.empty()) {
        v.unavailable.reset();
      } else {
        v.unavailable = it->second;
      }
    }
  }
}

}  // namespace

std::vector<std::string> ask_workers_for_variants(RunPlan& plan, const VariantQuery& query) {
  std::vector<std::string> notes;
  const std::string exe = impl::self_executable();
  for (WorkerPlan& w : plan.workers) {
    const std::string label = "threads=" + std::to_string(w.threads) + " " + name(w.space);
    impl::WorkerEnvironmentOptions env;
    env.threads = w.threads;
    env.omp_proc_bind = query.omp_proc_bind;
    env.omp_places = query.omp_places;
    std::vector<std::string> args = {"--query-variants", "--space", name(w.space), "--threads",
                                     std::to_string(w.threads)};
    if (query.filter) args.insert(args.end(), {"--filter", *query.filter});
    for (const auto& c : query.configs) args.insert(args.end(), {"--query-config", c});
    try {
      const impl::WorkerProcess process = impl::spawn_worker(exe, "", impl::worker_environment(env), args);
      const auto text = read_answer(process);
      close(process.message_fd);
      int status = 0;
      while (waitpid(process.pid, &status, 0) < 0 && errno == EINTR) {
      }
      const Answer answer = parse_answer(text.value_or(""));
      if (!text || (!answer.unstartable && answer.skip_reason.empty() && !w.groups.empty())) {
        notes.push_back("the worker for " + label + " did not answer which variants it would skip (" +
                        (text ? impl::describe_wait_status(status)
                              : "no answer in " + std::to_string(kQueryTimeoutSeconds) + " s") +
                        "): its variants are shown as this process sees them");
        continue;
      }
      apply(w, answer);
    } catch (const std::exception& e) {
      notes.push_back("cannot start a worker for " + label + ": " + e.what());
    }
  }
  return notes;
}

namespace impl {

int query_variants_main(int message_fd, const VariantQueryArgs& args) {
  if (const auto why = kokkos_unstartable(args.threads)) {
    write_all(message_fd, "unstartable\t" + one_field(*why) + "\n");
    return 3;
  }
  LoadOptions load;
  load.max_threads = available_cpus();
  std::vector<Config> configs;
  RunPlan plan;
  try {
    for (const auto& path : args.configs) configs.push_back(load_config(path, load));
    RunOverrides overrides;
    overrides.threads = std::vector<int>{args.threads};
    overrides.space = args.space;
    overrides.filter = args.filter;
    KokkosStartOptions options;  // as worker_main starts it
    options.num_threads = args.threads;
    const KokkosRuntime kokkos(options);
    set_blas_threads(args.threads);
    plan = make_plan(configs, overrides);
    std::string answer;
    for (const auto& w : plan.workers) {
      for (const auto& g : w.groups) {
        for (const auto& v : g.variants)
          answer += "variant\t" + case_id(g, v.name) + "\t" + one_field(v.unavailable.value_or("")) + "\n";
      }
    }
    write_all(message_fd, answer);
  } catch (const std::exception& e) {  // a config changed since the parent read it, a bad filter
    std::cerr << "tfbench worker: " << e.what() << "\n";
    return 2;
  }
  return 0;
}

}  // namespace impl
}  // namespace tfbench::harness
