#include "apps/app.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <sstream>

#include "apps/common.hpp"
#include "apps/options.hpp"
#include "core/base/error.hpp"
#include "core/comm/mpi.hpp"

namespace poreflow::app {

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

std::string source_commit() {
  const char* c = std::getenv("POREFLOW_COMMIT");
  return c && *c ? std::string(c) : std::string("unknown");
}

void add_common_options(CLI::App& app, Common& c, bool backend, bool devices, const std::string& precision_default) {
  if (backend) app.add_option("--backend,-b", c.backend, "serial | omp | opencl | cuda | auto")->capture_default_str();
  if (devices) {
    app.add_option("--device", c.backend_opts.cuda_device,
                   "CUDA device index (default: 0, or under mpirun each process's rank on its node)")
        ->check(int_at_least(0));
    app.add_option("--cl-platform", c.backend_opts.cl_platform,
                   "OpenCL platform, a case-insensitive part of its name (e.g. NVIDIA, Portable)");
    app.add_option("--cl-device", c.backend_opts.cl_device,
                   "OpenCL device index within the platform (default: 0, or under mpirun each process's rank on its node)")
        ->check(int_at_least(0));
    app.add_option("--threads", c.backend_opts.omp_threads, "OpenMP threads (0: OMP_NUM_THREADS or all cores)")
        ->check(int_in(0, 4096));
  }
  // the default is the subcommand's (or its case's), not Common's member: no capture_default_str
  app.add_option("--precision", c.precision, "float | double (default: " + precision_default + ")");
  app.add_flag("-v,--verbose", c.verbose, "more log output (-vv: trace)");
  app.add_flag("-q,--quiet", c.quiet, "warnings and errors only");
}

Precision run_precision(io::CaseFile& cf, const CLI::App& sub, const Common& c) {
  const auto from_case = cf.get_choice("precision", "double", parse_precision);
  return sub.count("--precision") ? parse_precision(c.precision) : from_case;
}

void apply_logging(const Common& c) {
  auto level = c.quiet ? spdlog::level::warn
               : c.verbose >= 2 ? spdlog::level::trace
               : c.verbose == 1 ? spdlog::level::debug
                                : spdlog::level::info;
  spdlog::set_level(level);
}

io::CaseFile load_case(const std::string& path, const Common& c) {
  auto cf = io::CaseFile::load(path);
  if (!c.reduction.empty()) cf.set("pressure.reduction=\"" + c.reduction + "\"");
  if (!c.combine.empty()) cf.set("pressure.combine=\"" + c.combine + "\"");
  if (c.block) cf.set("pressure.block=" + std::to_string(c.block));
  if (c.check_every) cf.set("pressure.check_every=" + std::to_string(c.check_every));
  if (!c.pressure_solver.empty()) cf.set("pressure.solver=\"" + c.pressure_solver + "\"");
  if (!c.algorithm.empty()) cf.set("pressure.algorithm=\"" + c.algorithm + "\"");
  for (const auto& s : c.sets) cf.set(s);
  return cf;
}

int main(int argc, char** argv) {
  auto logger = spdlog::stderr_color_mt("poreflow");
  logger->set_pattern("[%H:%M:%S.%e] [%^%l%$] %v");
  spdlog::set_default_logger(logger);

  CLI::App app{"poreflow: flow in porous media on CUDA, OpenCL and OpenMP", "poreflow"};
  app.set_version_flag("--version", POREFLOW_VERSION);
  app.require_subcommand(1);
  Common c;
  c.args.assign(argv + 1, argv + argc);
  add_info(app, c);
  add_run(app, c);
  add_compare(app, c);
  add_bench(app, c);
  add_generate(app, c);
  std::optional<mpi::Session> session;
  try {
    session.emplace(argc, argv);  // MPI when a launcher started several processes
    c.processes = session->size();
    c.rank = session->rank();
    const mpi::Launch launch = mpi::launched();
    c.backend_opts.node_rank = launch.local_rank;
    c.backend_opts.node_processes = launch.local_size;
    check_subcommands(app, argc, argv);
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    spdlog::shutdown();
    std::fprintf(stderr, "poreflow: error: %s\n", usage_message(app, e).c_str());
    return kExitUsage;
  } catch (const UsageError& e) {
    spdlog::shutdown();
    std::fprintf(stderr, "poreflow: error: %s\n", e.what());
    return kExitUsage;
  } catch (const Error& e) {
    spdlog::shutdown();
    std::fprintf(stderr, "poreflow: error: %s\n", e.what());
    std::fflush(stderr);
    if (session) session->abort(kExitError);  // the other processes would wait for this one
    return kExitError;
  } catch (const std::exception& e) {
    spdlog::shutdown();
    std::fprintf(stderr, "poreflow: internal error: %s\n", e.what());
    std::fflush(stderr);
    if (session) session->abort(kExitInternal);
    return kExitInternal;
  }
  return c.exit_code;
}

}  // namespace poreflow::app
