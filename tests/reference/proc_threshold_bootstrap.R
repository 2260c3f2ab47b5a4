# pROC 1.18 ci.coords(x = "best") and ci.thresholds: the bootstrap of a chosen threshold, several seeds.
# Run: Rscript tests/reference/proc_threshold_bootstrap.R  (writes proc_threshold_bootstrap.json here;
# the data are proc_power_asah.csv, written by proc_power_two.R from pROC's aSAH)
suppressMessages(library(pROC))
library(jsonlite)
here <- dirname(sub("--file=", "", grep("--file=", commandArgs(FALSE), value = TRUE)))
asah <- read.csv(file.path(here, "proc_power_asah.csv"))
out <- list()
for (score in c("s100b", "ndka", "wfns")) {
  r <- roc(asah$outcome, asah[[score]], levels = c("Good", "Poor"), direction = "<", quiet = TRUE)
  for (method in c("youden", "closest.topleft")) {
    best <- coords(r, "best", best.method = method, ret = c("threshold", "sensitivity", "specificity"))
    seeds <- list()
    for (seed in 1:8) {
      set.seed(seed)
      ci <- ci.coords(r, x = "best", best.method = method, best.policy = "random", boot.n = 2000,
                      ret = c("threshold", "sensitivity", "specificity"), progress = "none")
      seeds[[seed]] <- list(threshold = as.numeric(ci$threshold), sensitivity = as.numeric(ci$sensitivity),
                            specificity = as.numeric(ci$specificity))
    }
    out[[length(out) + 1]] <- list(score = score, criterion = method, kind = "coords",
                                   best = as.list(best[1, ]), seeds = seeds)
  }
  fixed <- median(asah[[score]])
  seeds <- list()
  for (seed in 1:8) {
    set.seed(seed)
    ci <- ci.thresholds(r, thresholds = fixed, boot.n = 2000, progress = "none")
    seeds[[seed]] <- list(sensitivity = as.numeric(ci$sensitivity), specificity = as.numeric(ci$specificity))
  }
  out[[length(out) + 1]] <- list(score = score, criterion = "value", kind = "thresholds", threshold = fixed,
                                 seeds = seeds)
}
write(toJSON(out, digits = NA, auto_unbox = TRUE, pretty = TRUE), file.path(here, "proc_threshold_bootstrap.json"))
