# Reference values for tests/test_smooth_roc.py: pROC's smooth() of ROC curves and the AUC
# of the smoothed curve, with ci.auc()'s stratified bootstrap of it.
#
# Run from the repository root:  Rscript tests/reference/proc_smooth.R
# Needs pROC (1.18), MASS and jsonlite. Writes proc_smooth.json and the data sets
# proc_smooth_asah.csv, proc_smooth_infert.csv and proc_smooth_sim.csv beside this script.
suppressPackageStartupMessages({library(pROC); library(jsonlite)})
out_dir <- "tests/reference"

data(aSAH)
asah <- data.frame(outcome = as.character(aSAH$outcome), s100b = aSAH$s100b, ndka = aSAH$ndka,
                   wfns = as.numeric(aSAH$wfns))
data(infert)
inf <- data.frame(case = infert$case, age = infert$age, parity = infert$parity)
set.seed(20261127)
n1 <- 70; n0 <- 90
sim <- data.frame(y = c(rep(1L, n1), rep(0L, n0)),
                  s = round(c(rnorm(n1, 1.1, 1.3), rnorm(n0, 0, 1)), 1))  # rounded: ties within and across classes
write.csv(asah, file.path(out_dir, "proc_smooth_asah.csv"), row.names = FALSE)
write.csv(inf, file.path(out_dir, "proc_smooth_infert.csv"), row.names = FALSE)
write.csv(sim, file.path(out_dir, "proc_smooth_sim.csv"), row.names = FALSE)

sets <- list(
  asah = list(frame = asah, outcome = "outcome", levels = c("Good", "Poor"), positive = "Poor"),
  infert = list(frame = inf, outcome = "case", levels = c(0, 1), positive = 1),
  sim = list(frame = sim, outcome = "y", levels = c(0, 1), positive = 1)
)

make_roc <- function(set, score, direction) {
  roc(sets[[set]]$frame[[sets[[set]]$outcome]], sets[[set]]$frame[[score]], levels = sets[[set]]$levels,
      direction = direction, quiet = TRUE)
}

curves <- list()
add <- function(set, score, direction, method, n = 512, ...) {
  r <- make_roc(set, score, direction)
  s <- smooth(r, method = method, n = n, ...)
  extra <- list(...)
  curves[[length(curves) + 1]] <<- c(list(data = set, score = score, direction = direction, method = method, n = n,
                                          auc = as.numeric(auc(s)), specificity = as.numeric(s$specificities),
                                          sensitivity = as.numeric(s$sensitivities)), extra)
}

for (score in c("s100b", "ndka", "wfns")) {
  add("asah", score, "<", "binormal")
  add("asah", score, "<", "density")
  add("asah", score, "<", "fitdistr")
}
add("asah", "s100b", "<", "binormal", n = 100)
add("asah", "s100b", "<", "density", n = 200, bw = "nrd", adjust = 1.5, kernel = "epanechnikov")
add("asah", "ndka", "<", "density", n = 300, kernel = "triangular")
add("asah", "ndka", "<", "density", kernel = "biweight", adjust = 0.7)
add("asah", "s100b", "<", "density", kernel = "rectangular")
add("asah", "s100b", "<", "density", kernel = "cosine")
add("asah", "s100b", "<", "density", kernel = "optcosine")
add("asah", "s100b", "<", "density", n = 1000)
add("asah", "s100b", "<", "fitdistr", density = "lognormal")
add("asah", "s100b", "<", "fitdistr", density.controls = "exponential", density.cases = "lognormal")
add("asah", "ndka", ">", "binormal")
add("asah", "ndka", ">", "density")
add("asah", "ndka", ">", "fitdistr")
add("asah", "s100b", ">", "fitdistr", density = "lognormal")
add("infert", "age", "<", "binormal")
add("infert", "age", "<", "density")
add("infert", "age", "<", "fitdistr")
add("infert", "parity", "<", "binormal")
add("infert", "parity", "<", "density")
add("sim", "s", "<", "binormal")
add("sim", "s", "<", "density")
add("sim", "s", "<", "density", bw = 0.25)
add("sim", "s", "<", "density", bw = 0.25, adjust = 2)
add("sim", "s", "<", "fitdistr")
add("sim", "s", "<", "fitdistr", n = 64)

# ci.auc() of smoothed curves: boot.n = 2000, stratified, percentile; several seeds
cis <- list()
for (method in c("binormal", "density", "fitdistr")) {
  for (setting in list(list("asah", "s100b"), list("sim", "s"))) {
    r <- make_roc(setting[[1]], setting[[2]], "<")
    s <- smooth(r, method = method)
    for (seed in c(1, 2, 3, 4)) {
      set.seed(seed)
      ci <- suppressWarnings(ci.auc(s, boot.n = 2000, progress = "none"))
      cis[[length(cis) + 1]] <- list(data = setting[[1]], score = setting[[2]], method = method, seed = seed,
                                     boot_n = 2000, level = 0.95, lower = ci[[1]], median = ci[[2]],
                                     upper = ci[[3]], auc = as.numeric(auc(s)))
    }
  }
}

writeLines(toJSON(list(pROC = as.character(packageVersion("pROC")), R = R.version.string, curves = curves,
                       ci = cis), auto_unbox = TRUE, digits = NA),
           file.path(out_dir, "proc_smooth.json"))
