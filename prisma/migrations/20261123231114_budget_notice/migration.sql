-- AlterTable
ALTER TABLE "usage_periods" ADD COLUMN     "budget_notified" BOOLEAN NOT NULL DEFAULT false;
