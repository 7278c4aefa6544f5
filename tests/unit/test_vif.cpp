// Unit tests of metrics/vif/ (to be written with the feature).
