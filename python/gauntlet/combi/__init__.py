"""Option combinatorics: option spaces and their covering-array plans, and campaigns that run a plan's rows."""

from .campaign import Campaign, CampaignResult, dask_client, row_mysqld
from .space import WORKLOAD, OptionSpace, Plan, row_settings

__all__ = ["Campaign", "CampaignResult", "dask_client", "OptionSpace", "Plan", "row_mysqld", "row_settings", "WORKLOAD"]
