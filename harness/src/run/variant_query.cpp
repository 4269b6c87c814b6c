#include "run/variant_query.hpp"

#include "run/environment.hpp"
#include "run/protocol.hpp"
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
  std::map<std::string, workloads::VariantInfo> variants;  // by case id
};

Answer parse_answer(const std::string& text) {
  Answer a;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    try {
      const Json m = impl::parse_message(line);
      const auto kind = m.at("msg").get<std::string>();
      if (kind == "unstartable") {
        a.unstartable = m.at("why").get<std::string>();
      } else if (kind == "variant") {
        a.variants[m.at("case_id").get<std::string>()] = m.at("variant").get<workloads::VariantInfo>();
      }
    } catch (const std::exception&) {  // a torn last line of a dying worker: what came before counts
    }
  }
  return a;
}

/// Applies one worker's answer to its plan.
void apply(WorkerPlan& w, const Answer& a, bool listing) {
  if (a.unstartable && !listing) return;  // the run's worker fails its start and says so
  for (auto& g : w.groups) {
    for (auto& v : g.variants) {
      if (a.unstartable) {
        v.unavailable = "the worker cannot start: " + *a.unstartable;
        continue;
      }
      const auto it = a.variants.find(case_id(g, v.name));
      if (it != a.variants.end()) {
        v = it->second;
      } else if (listing) {
        v.unavailable = "the family does not offer this variant in a worker (run records an error)";
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
      if (!text || (!answer.unstartable && answer.variants.empty() && !w.groups.empty())) {
        notes.push_back("the worker for " + label + " did not answer which variants it would skip (" +
                        (text ? impl::describe_wait_status(status)
                              : "no answer in " + std::to_string(kQueryTimeoutSeconds) + " s") +
                        "): its variants are shown as this process sees them");
        continue;
      }
      apply(w, answer, query.listing);
    } catch (const std::exception& e) {
      notes.push_back("cannot start a worker for " + label + ": " + e.what());
    }
  }
  return notes;
}

namespace impl {

int query_variants_main(int message_fd, const VariantQueryArgs& args) {
  if (const auto why = kokkos_unstartable(args.threads)) {
    write_all(message_fd, dump_json(message("unstartable", {{"why", *why}})) + "\n");
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
          answer += dump_json(message("variant", {{"case_id", case_id(g, v.name)}, {"variant", v}})) + "\n";
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
