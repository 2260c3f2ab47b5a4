# Reference values of the cumulative/dynamic AUC(t) with Kaplan-Meier censoring weights from riskRegression.
#
# Run from the repository root:  Rscript tests/reference/survival_reference.R
# (Debian: r-cran-riskregression 2022.11.28, r-cran-jsonlite). Writes tests/reference/survival_reference.json.
#
# Data (written by tests/test_survival.py's `simulated()`, seed 101, 240 rows; event times exponential with
# rate exp(x), markers m1 = x + N(0,1) and m2 = 0.5 x + N(0,1), exponential censoring, about 42% censored):
#   survival_rr_continuous.csv  no ties at all
#   survival_rr_tied.csv        times rounded to 0.1 (events and censorings tied) and markers to 0.1
# For each file, marker and horizon: AUC(t) and its standard error from the influence function with the
# Kaplan-Meier censoring term (conservative = FALSE) and without it (conservative = TRUE), and the paired
# contrast m2 - m1 (difference, standard error, p-value).
suppressMessages({
  library(riskRegression)
  library(survival)
  library(prodlim)
  library(jsonlite)
})

horizons <- c(0.35, 0.75)
records <- list()
for (name in c("continuous", "tied")) {
  d <- read.csv(file.path("tests", "reference", paste0("survival_rr_", name, ".csv")))
  for (conservative in c(FALSE, TRUE)) {
    res <- Score(list(m1 = d$m1, m2 = d$m2), formula = Hist(t, d) ~ 1, data = d, times = horizons,
                 metrics = "auc", cens.model = "km", split.method = "none", se.fit = TRUE,
                 conservative = conservative, null.model = FALSE)
    s <- res$AUC$score
    for (i in seq_len(nrow(s))) {
      records[[length(records) + 1]] <- list(file = name, marker = as.character(s$model[i]), horizon = s$times[i],
                                             conservative = conservative, estimate = s$AUC[i], se = s$se[i])
    }
    cc <- res$AUC$contrasts
    for (i in seq_len(nrow(cc))) {
      records[[length(records) + 1]] <- list(file = name, marker = paste0(cc$model[i], "-", cc$reference[i]),
                                             horizon = cc$times[i], conservative = conservative,
                                             estimate = cc$delta.AUC[i], se = cc$se[i], p_value = cc$p[i])
    }
  }
}
out <- list(riskRegression = as.character(packageVersion("riskRegression")), R = R.version.string,
            horizons = horizons, records = records)
writeLines(toJSON(out, auto_unbox = TRUE, digits = NA, pretty = TRUE),
           file.path("tests", "reference", "survival_reference.json"))
