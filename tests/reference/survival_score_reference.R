# Reference values of the cumulative/dynamic time-dependent AUC(t) with inverse-probability-of-censoring
# weights (Kaplan-Meier of the censoring) from riskRegression::Score, for the data written by
# tests/reference/survival_data.py.
#
# Run from the repository root:
#   python tests/reference/survival_data.py          # writes the two CSV files
#   Rscript tests/reference/survival_score_reference.R
# (Debian 12: r-base-core 4.2.2, r-cran-riskregression 2022.11.28, r-cran-prodlim 2019.11.13, r-cran-jsonlite).
# Writes tests/reference/survival_score_reference.json (jsonlite, digits = NA: full precision).
#
# Inputs (columns time, event, m1, m2, group, stratum):
#   survival_data.csv             "tied":       240 rows, time and markers rounded to 0.1 (events tied with
#                                               censorings, cases tied with controls); horizons 0.35, 1.05, 2.15
#   survival_data_continuous.csv  "continuous": 150 rows, no ties; horizons 0.3, 1.0, 2.2
#   (no horizon equals an observed time; on the tied file every multiple of 0.1 up to 3.0 is observed, hence
#   the horizons at the midpoints 0.35, 1.05, 2.15).
#
# For each file, subset ("all" rows, group == "a", group == "b"; the subset's rows are passed to Score, so the
# censoring Kaplan-Meier is re-estimated within the subset), conservative (FALSE, TRUE):
#   Score(list(m2 = M2, m1 = M1), formula = Hist(time, event) ~ 1, data = subset, times = horizons,
#         metrics = "auc", cens.model = "km", split.method = "none", se.fit = TRUE,
#         conservative = conservative, null.model = FALSE)
# where M1, M2 are n x length(horizons) matrices repeating the marker in every column (the marker is the
# predicted risk; higher = more risk; a plain vector gives identical results).
# Records:
#   marker "m1"/"m2": estimate = AUC(t) ($AUC$score$AUC), se = $AUC$score$se: its standard error from the
#     influence function; conservative = FALSE includes the term for the estimation of the censoring
#     Kaplan-Meier, conservative = TRUE ignores it (weights treated as known).
#   marker "m1-m2": estimate = AUC_m1(t) - AUC_m2(t) ($AUC$contrasts$delta.AUC, model m1, reference m2),
#     se = its standard error (paired, same influence-function construction), p_value = two-sided Wald p-value
#     ($AUC$contrasts$p = 2 * pnorm(-|delta / se|)).
# censoring is always "km" (marginal Kaplan-Meier of the censoring times, within the subset).
# A stratified censoring Kaplan-Meier ("km_stratum") is NOT available: with cens.model = "km", Score maps the
# model to "KaplanMeier" and getCensoringWeights() fits prodlim(update(formula, Surv(time, status) ~ 1),
# reverse = TRUE), i.e. it drops the right-hand side; Hist(time, event) ~ stratum gives exactly the same numbers
# as ~ 1 (checked). (cens.model = "cox" with strata() would be a stratified Breslow-type estimate, not a KM.)
suppressMessages({
  library(riskRegression)
  library(prodlim)
  library(survival)
  library(jsonlite)
})

ref_dir <- file.path("tests", "reference")
files <- list(tied = list(csv = "survival_data.csv", horizons = c(0.35, 1.05, 2.15)),
              continuous = list(csv = "survival_data_continuous.csv", horizons = c(0.3, 1.0, 2.2)))

records <- list()
add <- function(rec) records[[length(records) + 1]] <<- rec
for (name in names(files)) {
  d_all <- read.csv(file.path(ref_dir, files[[name]]$csv))
  h <- files[[name]]$horizons
  stopifnot(!any(h %in% d_all$time))
  for (subset in c("all", "a", "b")) {
    d <- if (subset == "all") d_all else d_all[d_all$group == subset, ]
    mm <- function(m) matrix(rep(m, length(h)), ncol = length(h))
    for (conservative in c(FALSE, TRUE)) {
      res <- Score(list(m2 = mm(d$m2), m1 = mm(d$m1)), formula = Hist(time, event) ~ 1, data = d, times = h,
                   metrics = "auc", cens.model = "km", split.method = "none", se.fit = TRUE,
                   conservative = conservative, null.model = FALSE)
      s <- res$AUC$score
      for (i in seq_len(nrow(s))) {
        add(list(file = name, subset = subset, censoring = "km", marker = as.character(s$model[i]),
                 horizon = s$times[i], conservative = conservative, estimate = s$AUC[i], se = s$se[i]))
      }
      cc <- res$AUC$contrasts
      stopifnot(all(as.character(cc$model) == "m1"), all(as.character(cc$reference) == "m2"))
      for (i in seq_len(nrow(cc))) {
        add(list(file = name, subset = subset, censoring = "km", marker = "m1-m2", horizon = cc$times[i],
                 conservative = conservative, estimate = cc$delta.AUC[i], se = cc$se[i], p_value = cc$p[i]))
      }
    }
  }
}

out <- list(
  R = R.version.string,
  riskRegression = as.character(packageVersion("riskRegression")),
  prodlim = as.character(packageVersion("prodlim")),
  call = paste("Score(list(m2 = M2, m1 = M1), formula = Hist(time, event) ~ 1, data, times = horizons,",
               "metrics = 'auc', cens.model = 'km', split.method = 'none', se.fit = TRUE,",
               "conservative = conservative, null.model = FALSE)"),
  files = lapply(files, function(f) list(csv = f$csv, horizons = f$horizons)),
  notes = c(
    "subset: 'all' rows, or rows with group == 'a' / 'b' (censoring Kaplan-Meier re-estimated within the subset)",
    "marker m1/m2: estimate = AUC(t), se = influence-function standard error",
    "marker m1-m2: estimate = AUC_m1(t) - AUC_m2(t), se = paired standard error, p_value = two-sided Wald p",
    "conservative = false: se includes the estimation of the censoring Kaplan-Meier; true: weights treated as known",
    "km_stratum not available: cens.model = 'km' ignores the formula's right-hand side (marginal KM always)"),
  records = records)
writeLines(toJSON(out, auto_unbox = TRUE, digits = NA, pretty = TRUE),
           file.path(ref_dir, "survival_score_reference.json"))
cat("wrote", length(records), "records\n")
