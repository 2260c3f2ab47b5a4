# Reference values for tests/test_matched.py: the within-matched-set AUROC on
# R's datasets::infert (1:2 matched case-control study of infertility, 83
# strata; one stratum is 1:1), written by hand from the formula, no package.
#
#   U_k = sum over cases i and controls j of stratum k of [s_i > s_j] + 1/2 [s_i = s_j]
#   P_k = (cases in k) * (controls in k)
#   theta = sum_k U_k / sum_k P_k
#   sandwich: var = K / (K - 1) * sum_k (U_k - theta P_k)^2 / (sum_k P_k)^2
#   jackknife: theta_(-k) = (sum U - U_k) / (sum P - P_k),
#              var = (K - 1) / K * sum_k (theta_(-k) - mean theta_(-))^2
#   logit interval: logit(theta) +- z * se / (theta (1 - theta)), back-transformed
#   wald interval: theta +- z * se
#
# Scores: spontaneous, induced, and the linear predictor of the conditional
# logistic regression case ~ spontaneous + induced + strata(stratum)
# (survival::clogit), stored as the column `lp` of infert.csv.
#
# Run from the repository root: Rscript tests/reference/matched_infert.R

library(survival)
library(jsonlite)

data(infert)
fit <- clogit(case ~ spontaneous + induced + strata(stratum), data = infert)
out <- infert
out$lp <- as.numeric(as.matrix(infert[, c("spontaneous", "induced")]) %*% coef(fit))
write.csv(out, "tests/reference/infert.csv", row.names = FALSE)

matched <- function(s, y, set, level = 0.95) {
  sets <- sort(unique(set))
  U <- numeric(0); P <- numeric(0)
  for (k in sets) {
    cs <- s[set == k & y == 1]; ct <- s[set == k & y == 0]
    if (length(cs) == 0 || length(ct) == 0) next
    u <- 0
    for (a in cs) for (b in ct) u <- u + (a > b) + 0.5 * (a == b)
    U <- c(U, u); P <- c(P, length(cs) * length(ct))
  }
  K <- length(U)
  theta <- sum(U) / sum(P)
  var_sw <- K / (K - 1) * sum((U - theta * P)^2) / sum(P)^2
  loo <- (sum(U) - U) / (sum(P) - P)
  var_jk <- (K - 1) / K * sum((loo - mean(loo))^2)
  z <- qnorm(1 - (1 - level) / 2)
  expit <- function(x) 1 / (1 + exp(-x))
  lg <- function(se) expit(log(theta / (1 - theta)) + c(-1, 1) * z * se / (theta * (1 - theta)))
  se_sw <- sqrt(var_sw); se_jk <- sqrt(var_jk)
  list(estimate = theta, n_sets = K, n_pairs = sum(P), wins = sum(U),
       se_sandwich = se_sw, se_jackknife = se_jk,
       logit = lg(se_sw), wald = theta + c(-1, 1) * z * se_sw, jackknife = lg(se_jk))
}

res <- list()
for (score in c("spontaneous", "induced", "lp")) {
  res[[score]] <- matched(out[[score]], out$case, out$stratum)
}
res$level <- 0.95
res$r_version <- R.version.string
writeLines(toJSON(res, digits = NA, auto_unbox = TRUE, pretty = TRUE), "tests/reference/matched_infert.json")
